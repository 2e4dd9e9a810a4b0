import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { RagError } from '../../core/errors';
import { extensionOf, SUPPORTED_EXTENSIONS } from '../../core/ingest/supported-files';
import { selectedBy } from '../../core/sync/glob';
import type { ListedFile } from '../../core/sync/sync-io';

/*
 * A git source (issue 46 §1): the work tree's repository read at a branch's head commit with git itself — `git
 * rev-parse` for the commit, `git ls-tree` for its files, `git cat-file --batch` for their bytes — so uncommitted
 * edits in the work tree are not synced and the report can name the commit it read.
 */

const run = promisify(execFile);
const supported: ReadonlySet<string> = new Set(SUPPORTED_EXTENSIONS);

/** A file of the commit: its blob, besides its path and sha256. */
export type GitFile = ListedFile & { blob: string };

/** The head commit of `branch` in the repository of `root`; SOURCE_UNAVAILABLE when either is gone. */
export async function headCommit(root: string, branch: string): Promise<string> {
  try {
    const { stdout } = await run('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]);
    return stdout.trim();
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || `no branch ${JSON.stringify(branch)}`;
    throw new RagError('SOURCE_UNAVAILABLE', `the git source ${root} cannot be read at branch ${JSON.stringify(branch)} (${detail}); if the repository moved or the branch was renamed, fix the source (ragtime sync rm, then add) — nothing was changed`, { cause: error });
  }
}

/** Reads blobs with one `git cat-file --batch`; `onBlob` gets each one's bytes, in the order asked. */
export async function readBlobs(root: string, blobs: readonly string[], onBlob: (index: number, bytes: Buffer) => void): Promise<void> {
  if (blobs.length === 0) return;
  const child = spawn('git', ['-C', root, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = Buffer.alloc(0);
  let index = 0;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const newline = buffer.indexOf(10);
        if (newline === -1) return;
        const header = buffer.subarray(0, newline).toString('utf8').split(' ');
        const size = Number(header[2]);
        if (header[1] !== 'blob' || !Number.isInteger(size)) return reject(new Error(`git cat-file: unexpected reply ${header.join(' ')}`));
        if (buffer.length < newline + 1 + size + 1) return;
        onBlob(index, buffer.subarray(newline + 1, newline + 1 + size));
        index += 1;
        buffer = buffer.subarray(newline + 1 + size + 1);
      }
    });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 && index === blobs.length ? resolve() : reject(new Error(`git cat-file ended (${code}) after ${index} of ${blobs.length} blobs: ${stderr.trim()}`))));
  });
  child.stdin.end(blobs.map((blob) => `${blob}\n`).join(''));
  await done;
}

/** The supported files of `commit` kept by the globs, with their blobs and hashes, in path order. */
export async function listCommit(root: string, commit: string, globs: { include: readonly string[]; exclude: readonly string[] }): Promise<GitFile[]> {
  const { stdout } = await run('git', ['-C', root, 'ls-tree', '-r', '-z', '--full-tree', commit], { maxBuffer: 256 * 1024 * 1024 });
  const entries = stdout
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      const [, type, blob] = line.slice(0, tab).split(' ');
      return { type, blob: blob!, path: line.slice(tab + 1) };
    })
    .filter((entry) => entry.type === 'blob' && supported.has(extensionOf(entry.path)) && selectedBy(entry.path, globs.include, globs.exclude))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const files: GitFile[] = entries.map((entry) => ({ path: entry.path, blob: entry.blob, hash: '' }));
  await readBlobs(root, files.map((file) => file.blob), (index, bytes) => {
    files[index]!.hash = createHash('sha256').update(bytes).digest('hex');
  });
  return files;
}
