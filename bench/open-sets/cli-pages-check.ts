import { z } from 'zod';
import type { Document } from './common';

/*
 * The mechanical checks of the cli-pages questions (issue 42 §7), pure: an answerable question's gold page must hold
 * every gold string (as written, white space collapsed); an unanswerable question's `absent` strings — what a right
 * answer would hold — must occur in no page at all, as whole words and case-insensitive. A question that fails is
 * dropped with its reason, for the set's README.
 */

/** A question as committed in cli-pages-questions.jsonl: what the golden set needs, plus what the build checks. */
export const CliQuestion = z.strictObject({
  /** The slug; the golden id is cli-<kind>-<id>. */
  id: z.string().regex(/^[a-z0-9-]+$/),
  /** The command asked about: its page (`<unit>.md`) is the gold page; a command not in the set has none. */
  unit: z.string().min(1),
  kind: z.enum(['howto', 'which-flag', 'default', 'yes-no', 'neighbour', 'not-in-docs', 'absent-command']),
  question: z.string().trim().min(1).max(2000),
  answerable: z.boolean(),
  /** Pages besides the unit's that also answer (a confusable neighbour: killall beside pkill). */
  also: z.array(z.string().min(1)).default([]),
  gold_answers: z.array(z.string().min(1)).default([]),
  /** For an unanswerable question: strings a right answer would hold; none may occur in any page. */
  absent: z.array(z.string().min(1)).default([]),
});
export type CliQuestion = z.infer<typeof CliQuestion>;

const collapse = (text: string) => text.replace(/\s+/g, ' ');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `needle` as a whole word of `haystack` (no letter, digit, "_" or "-" glued before it, no letter, digit or "_" after). */
export function occursAsWord(needle: string, haystack: string): boolean {
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_-])${escape(collapse(needle.trim()))}(?![\\p{L}\\p{N}_])`, 'iu');
  return pattern.test(collapse(haystack));
}

export function checkQuestions(questions: readonly CliQuestion[], documents: readonly Document[]): { kept: CliQuestion[]; dropped: Array<{ id: string; reason: string }> } {
  const pages = new Map(documents.map((d) => [d.id.replace(/\.md$/, ''), collapse(d.text)]));
  const kept: CliQuestion[] = [];
  const dropped: Array<{ id: string; reason: string }> = [];
  const seen = new Set<string>();
  for (const q of questions) {
    const reason = problemOf(q, pages, seen);
    seen.add(q.id);
    if (reason) dropped.push({ id: q.id, reason });
    else kept.push(q);
  }
  return { kept, dropped };
}

function problemOf(q: CliQuestion, pages: ReadonlyMap<string, string>, seen: ReadonlySet<string>): string | null {
  if (seen.has(q.id)) return 'id appears twice';
  const inSet = pages.has(q.unit);
  if (q.answerable) {
    if (q.kind === 'not-in-docs' || q.kind === 'absent-command') return `kind ${q.kind} cannot be answerable`;
    if (q.gold_answers.length === 0) return 'answerable without gold_answers';
    for (const doc of [q.unit, ...q.also]) if (!pages.has(doc)) return `no page ${doc}`;
    const page = pages.get(q.unit)!;
    const missing = q.gold_answers.filter((gold) => !page.includes(collapse(gold)));
    return missing.length > 0 ? `gold ${missing.map((m) => JSON.stringify(m)).join(', ')} not in ${q.unit}.md` : null;
  }
  if (q.kind === 'absent-command' && inSet) return `${q.unit} has a page: not an absent command`;
  if (q.kind === 'not-in-docs' && !inSet) return `${q.unit} has no page: an absent command, not a missing fact`;
  if (q.absent.length === 0) return 'unanswerable without absent strings to check';
  for (const marker of q.absent) {
    for (const [doc, text] of pages) if (occursAsWord(marker, text)) return `${JSON.stringify(marker)} occurs in ${doc}.md`;
  }
  return null;
}
