import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { RagError, describeZodError } from '../core/errors';
import { SUPPORTED_EXTENSIONS, unsupportedFileReason } from '../core/ingest/supported-files';
import { DocumentId } from '../core/knowledge/knowledge-base';

/** Extensions the loaders read (core/ingest/supported-files.ts). Other files in a directory are left out. */
export const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_EXTENSIONS);

/** A file to ingest and the document id it will have. */
export type DocumentInput = { file: string; id: string };

/** `--id` for a single file, `--prefix` for the files of a folder (DESIGN §4b). */
export type IdOptions = { id?: string; prefix?: string; cwd: string };

/** The path as a document id: relative to `cwd` when the file is under it, else absolute; "/" separators. */
export function normalizedPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  const under = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return (under ? relative : file).split(path.sep).join('/');
}

function walk(dir: string, found: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, found);
    else if (SUPPORTED.has(path.extname(entry.name).toLowerCase())) found.push(full);
  }
}

function checkId(id: string, file: string): string {
  const parsed = DocumentId.safeParse(id);
  if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError(`document id for ${file}`, parsed.error));
  return parsed.data;
}

/**
 * The files of `inputs` with their document ids. A file named directly whose type no loader reads is refused here,
 * UNSUPPORTED_FILE naming it and the supported types, as a missing one is (issue 45 §3: nothing is started for
 * either); directories are walked for supported files, and their other files are left out. Ids: `--id` (one file
 * only), else for a folder's files `--prefix` + their path inside the folder, else the normalized path. The same
 * file twice is kept once.
 */
export function documentInputs(inputs: string[], options: IdOptions): DocumentInput[] {
  const found: Array<{ file: string; dir: string | null }> = [];
  for (const input of inputs) {
    const absolute = path.resolve(options.cwd, input);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(absolute).isDirectory();
    } catch {
      throw new RagError('INVALID_INPUT', `${input}: no such file or directory`);
    }
    if (isDirectory) {
      const files: string[] = [];
      walk(absolute, files);
      found.push(...files.map((file) => ({ file, dir: absolute })));
    } else {
      const unsupported = unsupportedFileReason(path.basename(absolute));
      if (unsupported !== null) throw new RagError('UNSUPPORTED_FILE', `${input}: ${unsupported}`);
      found.push({ file: absolute, dir: null });
    }
  }
  const unique = [...new Map(found.map((entry) => [entry.file, entry])).values()];
  if (options.id !== undefined && (unique.length !== 1 || unique[0]?.dir !== null)) {
    throw new RagError('INVALID_INPUT', `--id names one document: give exactly one file (got ${unique.length} file(s)${unique.some((e) => e.dir !== null) ? ' from a folder; use --prefix for a folder' : ''})`);
  }
  return unique.map(({ file, dir }) => {
    const id =
      options.id !== undefined
        ? options.id
        : options.prefix !== undefined && dir !== null
          ? `${options.prefix}${path.relative(dir, file).split(path.sep).join('/')}`
          : normalizedPath(file, options.cwd);
    return { file, id: checkId(id, file) };
  });
}
