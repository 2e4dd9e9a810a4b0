import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { Command } from 'commander';

const SCRIPT = path.resolve(__dirname, '..', '..', '..', 'scripts', 'services.sh');

/** `ragtime services up|down|status [service…]`: the local services, through the project's one entry point. */
export function registerServices(program: Command, setExit: (code: number) => void): void {
  program
    .command('services')
    .description('start, stop or show the local services (Temporal dev server, Milvus Lite, embeddings, a background worker)')
    .argument('<action>', 'up | down | status | restart')
    .argument('[services...]', 'temporal | milvus | embeddings | postgres | worker (default: the first three; down also stops the others)')
    .action((action: string, services: string[]) => {
      const result = spawnSync('bash', [SCRIPT, action, ...services], { stdio: 'inherit' });
      setExit(result.status ?? 1);
    });
}
