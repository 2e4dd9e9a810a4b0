import type { Command } from 'commander';
import { RagError } from '../../core/errors';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { untilStopped } from '../until-stopped';

/** `ragtime serve`: the HTTP API of server/ (docs/API.md) on the configured Temporal, audit store and tokens. */
export function registerServe(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description('serve the HTTP API (ask, answer, runs, progress, the Trace API; /openapi.json) until Ctrl-C')
    .option('--port <n>', 'port (default RAGTIME_API_PORT, 8280; 0 picks a free one)')
    .option('--host <host>', 'address to bind (default RAGTIME_API_HOST, 127.0.0.1)')
    .action(async (flags: { port?: string; host?: string }, command: Command) => {
      const { config } = context;
      const port = flags.port === undefined ? config.api.port : Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        console.error(`ragtime: INVALID_INPUT: --port ${flags.port} is not a port number (0-65535)`);
        setExit(EXIT.usage);
        return;
      }
      if (config.api.tokens.length === 0) {
        throw new RagError(
          'INVALID_CONFIG',
          'no API tokens are configured, so nobody could call the API: make one with `ragtime token new <tenant>` and set ' +
            'RAGTIME_API_TOKENS="<tenant>:<sha256>" (or RAGTIME_API_TOKENS_FILE)',
        );
      }
      const rag = await context.client();
      const server = await context.host.serveApi(config, rag, {
        host: flags.host ?? config.api.host,
        port,
        logLevel: command.parent?.opts().verbose ? 'info' : 'warn',
        ...(context.uiBaseUrl ? { temporalUiUrl: context.uiBaseUrl } : {}),
      });
      console.log(server.banner);
      await untilStopped();
      await server.close();
    });
}
