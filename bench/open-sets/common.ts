import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { normalizeForMatch } from '../../core/answer/verify-answer';
import type { GoldenQuestion } from '../../core/eval/golden-set';
import { REPO_ROOT } from '../knowledge/common';

/*
 * What every open evaluation set shares (docs/design/evaluation-sets-plan.md §3): where the fetched sources live,
 * the held-out split by unit hash, the mechanical check that an unanswerable unit's text is absent from every
 * document, and the writer of a set pair (calibration `<set>` and `<set>-heldout`, the same docs/).
 */

/** Where bench/fetch-eval-sources.sh extracted the packages (outside the repository). */
export const EVAL_SOURCES = path.resolve(process.env.RAGTIME_EVAL_SOURCES ?? path.join(REPO_ROOT, '..', 'eval-sources'));

export type Document = { id: string; text: string };
/** A question with the unit it is about (a FAQ entry id, a CVE id): every question of a unit falls on one side. */
export type UnitQuestion = GoldenQuestion & { unit: string };

const unitHash = (set: string, unit: string) => createHash('sha256').update(`ragtime-open-sets-v1:${set}:${unit}`).digest('hex');

/** Held out: 30 % of the units, by hash (no seed: adding a unit never moves another one). */
export const isHeldOut = (set: string, unit: string): boolean => parseInt(unitHash(set, unit).slice(0, 8), 16) % 10 < 3;

/** Where a set chooses answerable/unanswerable itself: unanswerable when the hash's second word is odd. */
export const isCutOut = (set: string, unit: string): boolean => parseInt(unitHash(set, unit).slice(8, 16), 16) % 2 === 1;

/** Normalized sentences of ≥ 20 characters (as the citation verifier normalizes quotes). */
export function longSentences(text: string): string[] {
  return text
    .replace(/([^\n])\n(?!\n)/g, '$1 ') // wrapped lines of one paragraph
    .split(/(?<=[.!?。！？；;])\s+|(?<=[。！？；])|\n+/u)
    .filter((sentence) => !/^\s*\.\. /.test(sentence)) // reST link targets and directives: boilerplate, not content
    .map((sentence) => normalizeForMatch(sentence))
    // Heading underlines and other punctuation runs say nothing: a sentence must hold words.
    .filter((sentence) => sentence.length >= 20 && (sentence.match(/\p{L}/gu)?.length ?? 0) >= 12);
}

/**
 * The honesty check of an unanswerable unit: none of its long sentences, nor any of its markers (title, CVE id) may
 * occur in any document. Returns what leaked, or [] when the unit is absent. `boilerplate`: normalized sentences the
 * set has shown to be shared by many units (a severity notice), which state nothing of this one.
 */
export function leaks(unitText: string, markers: readonly string[], haystack: string, boilerplate: ReadonlySet<string> = new Set()): string[] {
  const found = longSentences(unitText).filter((sentence) => !boilerplate.has(sentence) && haystack.includes(sentence));
  for (const marker of markers) {
    const m = normalizeForMatch(marker);
    if (m.length >= 6 && haystack.includes(m)) found.push(m);
  }
  return found;
}

/** All documents, normalized and joined, for `leaks`. */
export const haystackOf = (documents: readonly Document[]): string => documents.map((d) => normalizeForMatch(d.text)).join('\n');

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** One golden-set folder: docs/ (ids as paths), questions.jsonl, README.md — replacing what was there. */
export function writeOne(dir: string, documents: readonly Document[], questions: readonly GoldenQuestion[], readme: string): void {
  rmSync(dir, { recursive: true, force: true });
  for (const document of documents) {
    const file = path.join(dir, 'docs', ...document.id.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, document.text);
  }
  writeFileSync(path.join(dir, 'questions.jsonl'), `${questions.map((q) => JSON.stringify(q)).join('\n')}\n`);
  writeFileSync(path.join(dir, 'README.md'), readme);
}

/**
 * Writes `<out>/<set>` (calibration) and `<out>/<set>-heldout`: the same documents, disjoint questions. `splitSet`
 * names the set whose split rule places the units (another set's, when both share units such as CVE ids).
 */
export function writeSetPair(out: string, set: string, documents: Document[], questions: UnitQuestion[], readme: string, splitSet = set): void {
  const docs = [...documents].sort(byId);
  const strip = ({ unit: _unit, ...q }: UnitQuestion): GoldenQuestion => q;
  const sorted = [...questions].sort(byId);
  const heldOut = sorted.filter((q) => isHeldOut(splitSet, q.unit)).map(strip);
  const calibration = sorted.filter((q) => !isHeldOut(splitSet, q.unit)).map(strip);
  for (const [name, qs] of [[set, calibration], [`${set}-heldout`, heldOut]] as const) {
    writeOne(path.join(out, name), docs, qs, readme);
    const answerable = qs.filter((q) => q.answerable).length;
    console.log(`${path.join(out, name)}: ${docs.length} documents, ${qs.length} questions (${answerable} answerable, ${qs.length - answerable} unanswerable)`);
  }
}

/**
 * HTML (DocBook output) to plain text: block ends become line breaks, tags go, entities are decoded. Every line is
 * trimmed, those of <pre> blocks included (their breaks are kept, their indentation is not).
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    // Source line breaks are not text breaks, except inside <pre> (kept as they are).
    .split(/(<pre[\s\S]*?<\/pre>)/i)
    .map((part) => (part.startsWith('<pre') ? part : part.replace(/\s+/g, ' ')))
    .join('')
    .replace(/<pre[^>]*>([\s\S]*?)<\/pre>/gi, (_m, body: string) => `\n${body.replace(/<[^>]+>/g, '')}\n`)
    .replace(/<li[^>]*>/gi, '\n- ')
    .replace(/<\/(p|div|h[1-6]|table|ul|ol|dl|blockquote)>/gi, '\n\n')
    .replace(/<\/(li|dt|dd|tr)>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_m, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .split('\n')
    .map((line) => line.replace(/[ \t\r]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
