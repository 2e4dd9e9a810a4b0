import * as path from 'node:path';

/*
 * The root of this checkout: the folder that holds package.json, scripts/, samples/ and console/. Entry-point code
 * that needs a file of the repository resolves it from here rather than counting `..` from its own folder: counting
 * broke `ragtime services` when the CLI moved a level down, into cli/ (issue 24 §4). This file is one level below
 * the root, and tsx runs it from the sources (bin/ragtime.js), so the answer does not depend on the caller's
 * working directory. test/unit/cli/repo-root.test.ts checks it against package.json.
 */
export const REPO_ROOT = path.resolve(__dirname, '..');

/** A path inside the repository: `repoPath('scripts', 'services.sh')`. */
export function repoPath(...segments: string[]): string {
  return path.join(REPO_ROOT, ...segments);
}
