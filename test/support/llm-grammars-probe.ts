import { JSON_SCHEMAS } from '../../activities/adapters/openai-chat-models';
import { sendableSchema } from '../../core/model-output/structured-request';
import { grammarSchema } from '../../server/llm/chat-request';

/*
 * Run as a process of its own (node-llama-cpp is an ESM package with top-level await, which jest's module runtime
 * cannot load): builds a grammar for every structured output the adapter sends, as the local model service does,
 * and prints {name: "ok" | error} as JSON. test/unit/server/llm-grammars.test.ts runs it.
 */
void (async () => {
  const { getLlama } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never' });
  const results: Record<string, string> = {};
  for (const [name, schema] of Object.entries(JSON_SCHEMAS)) {
    try {
      await llama.createGrammarForJsonSchema(grammarSchema(sendableSchema(schema)) as never);
      results[name] = 'ok';
    } catch (error) {
      results[name] = error instanceof Error ? error.message : String(error);
    }
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
  await llama.dispose();
})();
