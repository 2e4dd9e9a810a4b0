import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../runtime/repo-root';

/**
 * Replaces the text between a benchmark's markers in `file` (docs/PERFORMANCE.md); when they are missing, appends
 * them at the end, after `heading` when one is given. Says what it wrote.
 */
export function writeSection(file: string, markers: { begin: string; end: string }, markdown: string, heading?: string): void {
  const text = readFileSync(file, 'utf8');
  const begin = text.indexOf(markers.begin);
  const end = text.indexOf(markers.end);
  const section = `${markers.begin}\n${markdown}\n${markers.end}`;
  const appended = `${text.trimEnd()}\n\n${heading ? `${heading}\n\n` : ''}${section}\n`;
  writeFileSync(file, begin >= 0 && end > begin ? `${text.slice(0, begin)}${section}${text.slice(end + markers.end.length)}` : appended);
  console.log(`wrote the tables into ${path.relative(REPO_ROOT, file)}`);
}
