/**
 * A fresh clone of this checkout for the tests that act as a new user (test/e2e/fresh-clone.test.ts, the first-hour
 * test of test/first-hour): the files `git ls-files -co --exclude-standard` lists (tracked, and untracked but not
 * ignored), copied with their modes, rather than a `git clone`: a clone holds only what is committed, and the copy is
 * what a commit of this working tree would hold, so uncommitted work is tested too; what is ignored (.data/,
 * node_modules/, .venv/, console/dist/) is left out, as a clone leaves it out. A tracked file deleted in the working
 * tree is left out as well.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './services';
import { tail } from './worker-process';

export type Run = { code: number | null; stdout: string; stderr: string };

/** Runs a command and resolves when it exits (killed after `timeoutMs`). */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    if (options.input !== undefined) child.stdin?.end(options.input);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export const shown = (what: string, result: Run) => `${what} exited ${result.code}:\n${tail(result.stdout)}\n${tail(result.stderr)}`;

function isSymlink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Copies the files a commit of this working tree would hold into `to`, with their modes (see the top comment). */
export async function copyWorkingTree(to: string): Promise<number> {
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT });
  if (listed.code !== 0) throw new Error(shown('git ls-files', listed));
  const files = [...new Set(listed.stdout.split('\0').filter((file) => file !== ''))];
  let copied = 0;
  for (const file of files) {
    const from = path.join(REPO_ROOT, file);
    if (!existsSync(from) && !isSymlink(from)) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    if (isSymlink(from)) symlinkSync(readlinkSync(from), path.join(to, file));
    else copyFileSync(from, path.join(to, file)); // keeps the mode: scripts/*.sh stay executable
    copied += 1;
  }
  return copied;
}
