import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createOpenAiChatModels } from '../activities/adapters/openai-chat-models';
import { writeVerifiedAnswer } from '../activities/answer-writer';
import { splitSentences } from '../core/answer/sentences';
import type { RagAnswer } from '../core/schemas/answer';
import type { Chunk } from '../core/schemas/retrieved-chunk';
import { startFakeOpenAiServer } from '../test/support/fake-openai-server';
import { bare, changeableTokens, draftOf, inventNumber, reformat } from '../test/support/inventing-writer';

/*
 * The answer check's detection and false-alarm rates (issue 26 §4), on the OpenAI provider's answer path: the real
 * openai SDK and writeVerifiedAnswer (the generateAnswer activity's code) against the loopback OpenAI-compatible
 * server, scripted as a writer that restates one sentence of a document and cites it verbatim
 * (test/support/inventing-writer.ts):
 *   - faithful: the sentence as quoted, and re-formatted (full-width digits, thousands separators, "2 年" → "两年",
 *     unit spacing) — a numeric warning here is a false alarm;
 *   - invented: the same sentence with one number, date or model name raised by one (each of its tokens in turn),
 *     the quote unchanged — the citation check passes these as verified; a numeric warning naming the changed token
 *     is a detection;
 *   - foreign: another document's sentence cited with this sentence's quote — an unsupported claim is a detection.
 * The question is the document's title (what a person would name), so the check sees the model names it holds.
 *
 * Documents: the committed product manuals (samples/knowledge), and with --cmrc N the first N paragraphs of
 * CMRC 2018 dev (read in place from ../shared/eval/cmrc2018, never copied here).
 *
 *   npx tsx bench/numeric-check.ts [--cmrc N] [--show N] [--json FILE]
 */

const HELP = `usage: npx tsx bench/numeric-check.ts [options]
  --cmrc N      also the first N paragraphs of CMRC 2018 dev (default 0)
  --data FILE   cmrc2018_dev.json (default ../shared/eval/cmrc2018/cmrc2018_dev.json)
  --show N      print N false alarms and N misses per source (default 5)
  --json FILE   also write every case and its findings as JSON`;

type Doc = { source: string; title: string; text: string };
type Case = { source: string; kind: 'faithful' | 'reformatted' | 'invented' | 'foreign'; changed?: { token: string; kind: string }; question: string; answer: string; quote: string; doc: Doc };
type Result = Case & { numeric: string[]; claims: number; flaggedChange: boolean; status: string };

const API_KEY = 'sk-bench-numeric-check';

function manuals(): Doc[] {
  const dir = path.join(__dirname, '../samples/knowledge');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(dir, name), 'utf8');
      const title = (/^#\s+(.+)$/m.exec(text)?.[1] ?? name).replace(/用户手册$/, '').trim();
      return { source: 'samples/knowledge', title, text };
    });
}

function cmrc(file: string, paragraphs: number): Doc[] {
  if (paragraphs === 0) return [];
  if (!existsSync(file)) throw new Error(`${file}: no such file; pass --data, or leave --cmrc out`);
  const data = JSON.parse(readFileSync(file, 'utf8')) as { data: { title: string; paragraphs: { context: string }[] }[] };
  return data.data.flatMap((article) => article.paragraphs.map((paragraph) => ({ source: 'cmrc2018-dev', title: article.title, text: paragraph.context }))).slice(0, paragraphs);
}

/** The sentences of a document a writer could restate with a number in it (headings and list lines left out). */
const numericSentences = (doc: Doc): string[] =>
  splitSentences(doc.text)
    .filter((sentence) => !sentence.startsWith('#') && !sentence.startsWith('-'))
    .map(bare)
    .filter((sentence) => sentence.length >= 6 && sentence.length <= 200 && changeableTokens(sentence).length > 0);

function casesOf(docs: readonly Doc[]): Case[] {
  const all = docs.map((doc) => ({ doc, sentences: numericSentences(doc) }));
  return all.flatMap(({ doc, sentences }, d) =>
    sentences.flatMap((quote, s) => {
      const base = { source: doc.source, question: `${doc.title}？`, quote, doc };
      const foreignDoc = all[(d + 1) % all.length];
      const foreign = foreignDoc && foreignDoc.doc !== doc ? foreignDoc.sentences[s % Math.max(1, foreignDoc.sentences.length)] : undefined;
      return [
        { ...base, kind: 'faithful' as const, answer: quote },
        ...(reformat(quote) === quote ? [] : [{ ...base, kind: 'reformatted' as const, answer: reformat(quote) }]),
        ...changeableTokens(quote).map((token) => ({ ...base, kind: 'invented' as const, changed: { token: inventNumber(token.surface, { ...token, start: 0, end: token.surface.length }), kind: token.kind }, answer: inventNumber(quote, token) })),
        ...(foreign === undefined ? [] : [{ ...base, kind: 'foreign' as const, answer: foreign }]),
      ];
    }),
  );
}

const pct = (part: number, whole: number): string => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)} % (${part}/${whole})`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cmrc: { type: 'string', default: '0' },
      data: { type: 'string', default: path.join(__dirname, '../../shared/eval/cmrc2018/cmrc2018_dev.json') },
      show: { type: 'string', default: '5' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void console.log(HELP);
  const docs = [...manuals(), ...cmrc(values.data, Number(values.cmrc))];
  const cases = casesOf(docs);
  const server = await startFakeOpenAiServer({ apiKey: API_KEY });
  const models = createOpenAiChatModels({ apiKey: API_KEY, baseUrl: server.baseUrl, fastModel: 'fast', gradeModel: 'grade', answerModel: 'inventing-writer' });
  const results: Result[] = [];
  const started = performance.now();
  try {
    for (const one of cases) {
      const chunk: Chunk = { chunk_id: `${one.doc.title}-1`, filename: one.doc.title, page_number: 1, text: one.doc.text };
      server.enqueue('answer_draft', { json: draftOf(one.answer, one.quote) });
      const answer: RagAnswer = await writeVerifiedAnswer(models, { question: one.question, docs: [chunk] }, 1, () => performance.now(), undefined, 'warn');
      server.reset();
      const numeric = (answer.verification.numeric_warnings ?? []).map((warning) => warning.token);
      const flaggedChange = one.changed !== undefined && numeric.some((token) => token.normalize('NFKC').replace(/\s+/g, '') === one.changed?.token.normalize('NFKC').replace(/\s+/g, ''));
      results.push({ ...one, numeric, claims: answer.verification.unsupported_claims?.length ?? 0, flaggedChange, status: answer.verification.status });
    }
  } finally {
    await server.close();
  }
  const ms = performance.now() - started;

  const show = Number(values.show);
  for (const source of [...new Set(results.map((result) => result.source))]) {
    const of = (kind: Case['kind']) => results.filter((result) => result.source === source && result.kind === kind);
    const [faithful, reformatted, invented, foreign] = [of('faithful'), of('reformatted'), of('invented'), of('foreign')];
    const honest = [...faithful, ...reformatted];
    console.log(`\n${source}: ${new Set(honest.map((result) => result.doc)).size} documents, ${faithful.length} sentences with a number`);
    console.log(`  invented number flagged (a numeric warning names it):   ${pct(invented.filter((result) => result.flaggedChange).length, invented.length)}`);
    for (const kind of ['number', 'quantity', 'date', 'model_name']) {
      const these = invented.filter((result) => result.changed?.kind === kind);
      if (these.length > 0) console.log(`    ${kind.padEnd(10)} ${pct(these.filter((result) => result.flaggedChange).length, these.length)}`);
    }
    console.log(`  invented answers still 'verified' by the citation check: ${pct(invented.filter((result) => result.status === 'verified').length, invented.length)}`);
    console.log(`  false alarm, numeric (faithful answer flagged):         ${pct(honest.filter((result) => result.numeric.length > 0).length, honest.length)}`);
    console.log(`    verbatim ${pct(faithful.filter((result) => result.numeric.length > 0).length, faithful.length)}, re-formatted ${pct(reformatted.filter((result) => result.numeric.length > 0).length, reformatted.length)}`);
    console.log(`  false alarm, unsupported claim on a faithful answer:   ${pct(honest.filter((result) => result.claims > 0).length, honest.length)}`);
    console.log(`  foreign claim flagged as unsupported:                  ${pct(foreign.filter((result) => result.claims > 0).length, foreign.length)}`);
    for (const result of honest.filter((r) => r.numeric.length > 0).slice(0, show)) console.log(`    false alarm: ${JSON.stringify(result.numeric)} in ${JSON.stringify(result.answer.slice(0, 100))}`);
    for (const result of invented.filter((r) => !r.flaggedChange).slice(0, show)) console.log(`    miss: ${JSON.stringify(result.changed?.token)} in ${JSON.stringify(result.answer.slice(0, 100))} (flagged ${JSON.stringify(result.numeric)})`);
  }
  console.log(`\n${results.length} answers through the OpenAI SDK and writeVerifiedAnswer in ${(ms / 1000).toFixed(1)} s`);
  if (values.json) writeFileSync(values.json, JSON.stringify(results.map(({ doc, ...rest }) => ({ ...rest, title: doc.title })), null, 1));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
