import type { Command } from 'commander';
import { buildAdapters } from '../../../workers/build-adapters';
import { runWorker } from '../../../workers/run-worker';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { renderRetrieval } from '../render/retrieval';

export function registerKnowledgeCommands(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('worker')
    .description('run a ragtime worker (all workflows and activities) until Ctrl-C')
    .action(async (_flags: unknown, command: Command) => {
      await runWorker(context.config, { sdkLogLevel: command.parent?.opts().verbose ? 'INFO' : 'WARN' });
    });

  program
    .command('search')
    .description('run one retrieval (spec §6) in-process and print the evidence, the retrieval meta and the diagnostics')
    .argument('<query>')
    .option('--top-k <n>', 'final top-K (default RETRIEVAL_TOP_K)')
    .option('--json', 'print {docs, meta, diagnostics} as JSON')
    .action(async (query: string, flags: { topK?: string; json?: boolean }) => {
      const topK = flags.topK === undefined ? context.config.retrieval.topK : Number(flags.topK);
      if (!Number.isInteger(topK) || topK < 1) {
        console.error(`ragtime: INVALID_INPUT: --top-k ${flags.topK} is not a positive integer`);
        setExit(EXIT.usage);
        return;
      }
      const config = { ...context.config, retrieval: { ...context.config.retrieval, topK } };
      const adapters = buildAdapters(config);
      try {
        const result = await adapters.retriever.retrieve(query);
        console.log(flags.json ? JSON.stringify(result, null, 2) : renderRetrieval(result));
        if (result.meta.retrieval_mode === 'failed') setExit(EXIT.unavailable);
      } finally {
        await adapters.close();
      }
    });
}
