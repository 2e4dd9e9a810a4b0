import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './services';

/*
 * A copy of the service scripts in a temporary folder (no node_modules, no services), for the tests of
 * scripts/services.sh and scripts/llm-weights.sh: each runs on a data dir and ports of its own.
 */

/** The local model's pinned digest (scripts/llm-weights.sh). */
export const LLM_WEIGHTS_SHA256 = 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046';

/** A temporary folder holding `scripts/` with copies of `files`; its real path (macOS-style symlinked tmp resolved). */
export function scriptSandbox(prefix: string, files: readonly string[] = ['services.sh', 'env.sh', 'llm-weights.sh']): string {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  mkdirSync(path.join(root, 'scripts'));
  for (const file of files) copyFileSync(path.join(REPO_ROOT, 'scripts', file), path.join(root, 'scripts', file));
  return root;
}

/**
 * A stand-in for the local model's cached weights in `cache` (RAGTIME_LLM_CACHE): a file under the pinned digest's
 * name with its stamp, which scripts/llm-weights.sh trusts (it writes the stamp only after checking a joined file).
 */
export function standInWeights(cache: string, content = 'stand-in weights'): void {
  mkdirSync(cache, { recursive: true });
  writeFileSync(path.join(cache, `${LLM_WEIGHTS_SHA256}.gguf`), content);
  writeFileSync(path.join(cache, `${LLM_WEIGHTS_SHA256}.gguf.sha256`), LLM_WEIGHTS_SHA256);
}
