import { Command } from 'commander';
import { registerAsk } from './commands/ask';
import { registerCancel } from './commands/cancel';
import { registerChat } from './commands/chat';
import { registerCodecCommands } from './commands/codec';
import { registerDoctor } from './commands/doctor';
import { registerEval } from './commands/eval';
import { registerIngest } from './commands/ingest';
import { registerKnowledgeCommands } from './commands/knowledge';
import { registerKnowledgeBaseCommands } from './commands/knowledge-bases';
import { registerMcp } from './commands/mcp';
import { registerRunCommands } from './commands/runs';
import { registerServe } from './commands/serve';
import { registerServices } from './commands/services';
import { registerSessionCommands } from './commands/sessions';
import { registerSyncCommands } from './commands/sync';
import { registerTenantCommands } from './commands/tenant';
import { registerTokenCommands } from './commands/token';
import { registerLlm } from './commands/llm';
import { createCliContext } from './context';
import { reportError } from './errors';
import { EXIT, EXIT_CODES_HELP } from './exit-codes';
import type { CliHost } from './host';

/**
 * The `ragtime` command line. Each command sets the exit code; errors print one line unless --verbose. The host
 * (bin/main.ts) supplies the worker and the servers.
 */
export async function main(argv: string[], host: CliHost): Promise<number> {
  let exitCode: number = EXIT.ok;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const verbose = argv.includes('--verbose');
  const program = new Command('ragtime')
    .description('ragtime — a durable, observable agentic-RAG engine on Temporal and Milvus')
    .option('--verbose', 'print stack traces and causes of errors')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride()
    .showHelpAfterError();
  let context: ReturnType<typeof createCliContext> | null = null;
  try {
    context = createCliContext({ ...process.env }, host);
    registerServices(program, setExit);
    registerDoctor(program, context, setExit);
    registerAsk(program, context, setExit);
    registerChat(program, context, setExit, verbose);
    registerRunCommands(program, context, setExit);
    registerCancel(program, context);
    registerKnowledgeCommands(program, context, setExit);
    registerKnowledgeBaseCommands(program, context);
    registerEval(program, context, setExit);
    registerIngest(program, context, setExit);
    registerCodecCommands(program, context, setExit);
    registerServe(program, context, setExit);
    registerMcp(program, context);
    registerTokenCommands(program);
    registerSessionCommands(program, context);
    registerSyncCommands(program, context);
    registerTenantCommands(program, context);
    registerLlm(program, context);
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return EXIT.ok;
    if (typeof code === 'string' && code.startsWith('commander.')) return EXIT.usage;
    return reportError(error, verbose);
  } finally {
    await context?.close().catch(() => undefined);
  }
}
