import { ENV_DEFAULTS } from '../core/config';
import { repoPath } from '../runtime/repo-root';

/**
 * RAGTIME_DATA_DIR as the `ragtime` command reads it: the caller's setting (a relative one is resolved from where the
 * command runs, as the caller meant), else the repository's .data/, where `make demo` and `ragtime services` keep the
 * codec keys, the parent store and the logs (scripts/env.sh; docs/OPERATIONS.md). Not ./.data of the working
 * directory: run from a subfolder, or anywhere through `npm link`, that was a second, empty data dir (no codec keys,
 * so no payload could be read; an empty parent store) made wherever the command ran (issue 24 §4).
 */
export function cliDataDir(env: NodeJS.ProcessEnv): string {
  return env.RAGTIME_DATA_DIR?.trim() || repoPath(ENV_DEFAULTS.RAGTIME_DATA_DIR);
}
