import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { repoPath } from '../../runtime/repo-root';
import { EXIT } from '../exit-codes';

/** The project's one entry point for the local services (also `make up|down|status`). */
export const SERVICES_SCRIPT = repoPath('scripts', 'services.sh');

/** scripts/services.sh `status`: exit 3 when a named service is not running. */
const SCRIPT_STATUS_NOT_RUNNING = 3;

/**
 * The script's exit code as ragtime's (cli/exit-codes.ts). Its `status` exits 3 when a service is down, which for
 * ragtime means "waiting for an answer": that becomes 4, a service is not reachable. Every other code (0, 1 failed,
 * 2 usage) already means what ragtime's does.
 */
export function servicesExitCode(action: string, status: number | null): number {
  if (status === null) return EXIT.failed;
  return action === 'status' && status === SCRIPT_STATUS_NOT_RUNNING ? EXIT.unavailable : status;
}

/** `ragtime services up|down|status|restart [service…]`: the local services, through scripts/services.sh. */
export function registerServices(program: Command, setExit: (code: number) => void): void {
  program
    .command('services')
    .description('start, stop or show the local services (Temporal dev server, Milvus Lite, embeddings, a background worker)')
    .argument('<action>', 'up | down | status | restart')
    .argument(
      '[services...]',
      'temporal | milvus | embeddings | postgres | worker | codec | api | llm (default: the first three; status also shows the others that run, down also stops them)',
    )
    .action((action: string, services: string[]) => {
      const result = spawnSync('bash', [SERVICES_SCRIPT, action, ...services], { stdio: 'inherit' });
      if (result.error !== undefined) {
        console.error(`ragtime services: could not run bash ${SERVICES_SCRIPT}: ${result.error.message}`);
      }
      setExit(servicesExitCode(action, result.status));
    });
}
