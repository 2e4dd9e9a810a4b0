import { collect, FILTER_HELP, filtersOfFlags } from '../filter-flags';
import type { Command } from 'commander';
import type { RagConfig } from '../../core/config';
import type { RetrievalResult } from '../../core/trace/writers';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { renderRetrieval } from '../render/retrieval';

/** One line naming the service a failed retrieval could not reach, and how to start it. */
export function retrievalFailureLine(result: RetrievalResult, config: RagConfig, kb: string): string {
  const embeddingError = result.diagnostics?.embedding_error;
  const attemptError = result.diagnostics?.attempts.find((attempt) => attempt.error)?.error;
  const [service, detail] = embeddingError
    ? [`the embeddings server at ${config.embeddings.baseUrl}`, embeddingError]
    : [`Milvus at ${config.milvus.address} (knowledge base ${kb})`, attemptError ?? 'no detail'];
  const short = detail.length > 160 ? `${detail.slice(0, 159)}…` : detail;
  return `ragtime: SERVICE_UNAVAILABLE: retrieval failed, cannot use ${service}: ${short}; start the local services with \`make up\` (or \`ragtime services up\`)`;
}

export function registerKnowledgeCommands(program: Command, context: CliContext, setExit: (code: number) => void): void {
  // The worker and the in-process retriever come from the host (cli/host.ts), which loads them on first use.
  program
    .command('worker')
    .description('run a ragtime worker (all workflows and activities) until Ctrl-C')
    .option('--allow-mixed-providers', 'start even when a worker of another model provider polls the same task queue (questions then go to either)')
    .action(async (flags: { allowMixedProviders?: boolean }, command: Command) => {
      await context.host.runWorker(context.config, {
        sdkLogLevel: command.parent?.opts().verbose ? 'INFO' : 'WARN',
        allowMixedProviders: flags.allowMixedProviders === true,
      });
    });

  program
    .command('search')
    .description('run one retrieval (spec §6) in-process and print the evidence, the retrieval meta and the diagnostics')
    .argument('<query>')
    .option('--kb <name>', 'knowledge base (default RAGTIME_KB, else MILVUS_COLLECTION)')
    .option('--top-k <n>', 'final top-K (default RETRIEVAL_TOP_K)')
    .option('--filter <key=value>', FILTER_HELP, collect)
    .option('--json', 'print {docs, meta, diagnostics} as JSON')
    .action(async (query: string, flags: { kb?: string; topK?: string; filter?: string[]; json?: boolean }) => {
      const filters = filtersOfFlags(flags.filter); // a bad one exits 2 before the stores are opened
      const topK = flags.topK === undefined ? context.config.retrieval.topK : Number(flags.topK);
      if (!Number.isInteger(topK) || topK < 1) {
        console.error(`ragtime: INVALID_INPUT: --top-k ${flags.topK} is not a positive integer`);
        setExit(EXIT.usage);
        return;
      }
      const kb = context.kbOf(flags.kb);
      const config = { ...context.config, retrieval: { ...context.config.retrieval, topK } };
      const retriever = context.host.openRetriever(config);
      try {
        // A knowledge base that does not exist is UNKNOWN_KB (exit 2), listing the ones that do.
        const result = await retriever.retrieve(query, kb, filters.filters ? { filters: filters.filters } : undefined);
        console.log(flags.json ? JSON.stringify(result, null, 2) : renderRetrieval(result));
        if (result.meta.retrieval_mode === 'failed') {
          console.error(retrievalFailureLine(result, config, kb));
          setExit(EXIT.unavailable);
        }
      } finally {
        await retriever.close();
      }
    });
}
