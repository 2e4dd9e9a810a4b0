import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { LOCAL_MODEL } from '../../core/local-model';
import { RagError } from '../../core/errors';
import type { CliContext } from '../context';
import { cliDataDir } from '../data-dir';
import { untilStopped } from '../until-stopped';

/** `ragtime llm serve` (issue 34 §1): the local model service, as scripts/services.sh starts it (`services up llm`). */
export function registerLlm(program: Command, context: CliContext): void {
  program
    .command('llm')
    .description('the local model service (MODEL_PROVIDER=local): `ragtime llm serve`; `ragtime services up llm` fetches the weights and starts it')
    .command('serve')
    .description("serve the local model's OpenAI chat-completions API on loopback (streaming; JSON schema by grammar) until Ctrl-C")
    .option('--model <file>', `the GGUF file (default RAGTIME_DATA_DIR/llm/${LOCAL_MODEL.file}, which scripts/llm-weights.sh fetches)`)
    .option('--port <n>', `port (default LLM_PORT, ${LOCAL_MODEL.port})`)
    .option('--threads <n>', 'CPU threads (default: every core)')
    .option('--context <n>', `context size in tokens (default ${LOCAL_MODEL.contextSize})`)
    .action(async (flags: { model?: string; port?: string; threads?: string; context?: string }) => {
      const whole = (name: string, text: string | undefined, fallback: number, min: number, max: number) => {
        const value = text === undefined ? fallback : Number(text);
        if (!Number.isInteger(value) || value < min || value > max) throw new RagError('INVALID_INPUT', `--${name} ${text} is not a whole number from ${min} to ${max}`);
        return value;
      };
      const port = whole('port', flags.port, context.config.models.localPort, 0, 65_535);
      const threads = whole('threads', flags.threads, os.availableParallelism(), 1, 256);
      const contextSize = whole('context', flags.context, LOCAL_MODEL.contextSize, 512, 131_072);
      const modelPath = flags.model ?? path.join(cliDataDir(process.env), 'llm', LOCAL_MODEL.file);
      const running = await context.host.serveLocalLlm({ modelPath, modelName: LOCAL_MODEL.id, host: '127.0.0.1', port, threads, contextSize });
      console.log(`ragtime llm: ${LOCAL_MODEL.id} at ${running.url}/v1 (OpenAI chat completions; ${threads} threads, context ${contextSize})`);
      await untilStopped();
      await running.close();
    });
}
