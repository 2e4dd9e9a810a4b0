import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { RagError } from '../../core/errors';
import { extensionOf, SUPPORTED_EXTENSIONS } from '../../core/ingest/supported-files';
import { selectedBy } from '../../core/sync/glob';
import type { ListedFile } from '../../core/sync/sync-io';

/*
 * A folder source as it is on disk (issue 46 §1): every file of a supported type under it (hidden folders, such as
 * .git, skipped), kept by the include and exclude globs, with the sha256 of its bytes.
 */

/** A listed file and where a pass reads it from. */
export type SourceFile = ListedFile & { file: string };

const supported: ReadonlySet<string> = new Set(SUPPORTED_EXTENSIONS);

/** SOURCE_UNAVAILABLE unless `root` is a folder that can be read. */
export async function assertFolder(root: string): Promise<void> {
  const found = await stat(root).catch((error: NodeJS.ErrnoException) => {
    throw new RagError('SOURCE_UNAVAILABLE', `the source folder ${root} cannot be read (${error.code ?? error.message}); if it is unmounted or moved, mount or restore it — nothing was changed`, { cause: error });
  });
  if (!found.isDirectory()) throw new RagError('SOURCE_UNAVAILABLE', `the source ${root} is not a folder; nothing was changed`);
}

async function walk(root: string, relative: string, out: string[]): Promise<void> {
  const entries = await readdir(path.join(root, relative), { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) await walk(root, rel, out);
    else if (entry.isFile() && supported.has(extensionOf(entry.name))) out.push(rel);
  }
}

/** The folder's files with their hashes, in path order; `onFile` counts them as they are read (heartbeats). */
export async function listFolder(root: string, globs: { include: readonly string[]; exclude: readonly string[] }, onFile: (done: number, total: number) => void = () => undefined): Promise<SourceFile[]> {
  await assertFolder(root);
  const paths: string[] = [];
  await walk(root, '', paths);
  const selected = paths.filter((rel) => selectedBy(rel, globs.include, globs.exclude)).sort();
  const files: SourceFile[] = [];
  for (const rel of selected) {
    const file = path.join(root, rel);
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
    if (bytes === null) continue; // removed while listed: the next pass sees it gone
    files.push({ path: rel, hash: createHash('sha256').update(bytes).digest('hex'), file });
    onFile(files.length, selected.length);
  }
  return files;
}
