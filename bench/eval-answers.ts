import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createOfflineChatModels } from '../activities/adapters/offline-chat-models';
import { selectChatModels } from '../activities/adapters/select-chat-models';
import { writeVerifiedAnswer } from '../activities/answer-writer';
import { CITATION_MARKER } from '../core/answer/sentences';
import { normalizeForMatch } from '../core/answer/verify-answer';
import type { RagAnswer } from '../core/schemas/answer';
import { cmrcArgOptions, openCmrcIndex, optionalInt } from './knowledge/cmrc-index';
import { describeMachine, fmt, loadAverage, pool, progressReporter, summarize, table } from './knowledge/common';

/*
 * Answer quality of the offline provider on CMRC 2018 dev (issue 11 §3; DESIGN §5C): every paragraph indexed through
 * ragtime's ingestion (bench/knowledge/cmrc-index.ts), every question retrieved by the real retriever, and its final
 * evidence answered by the configured provider's writer (the offline extractive answerer unless a model is
 * configured, as for a worker) through the answer node's own code (writeVerifiedAnswer: the
 * draft parsed, verified, made into the outcome's answer). The grader is left out: this measures the writer on the
 * evidence retrieval gives it, whatever route a grade would pick.
 *
 * A question's answer "contains a gold span" when one of its CMRC answer texts occurs in the answer text without
 * its [n] markers (both normalized as the verifier normalizes quotes: NFKC, CJK punctuation, case, no white space);
 * "its cited sentence contains it" when it occurs in one of the citations' quotes.
 *
 * Data: CMRC 2018 (Cui et al., EMNLP 2019), CC BY-SA 4.0, read in place from ../shared/eval/cmrc2018.
 *
 *   npx tsx bench/eval-answers.ts [--questions N] [--paragraphs N] [--embedding-cache FILE] [--json FILE]
 *   make eval-answers ARGS="…"
 */

const HELP = `usage: npx tsx bench/eval-answers.ts [options]
  --data FILE              cmrc2018_dev.json (default ../shared/eval/cmrc2018/cmrc2018_dev.json)
  --paragraphs N           index only the first N paragraphs (and ask only their questions)
  --questions N            ask only the first N questions
  --collection NAME        Milvus collection, dropped first and afterwards (default bench_cmrc_answers)
  --concurrency N          questions in flight (default 2)
  --embedding-cache FILE   reuse/fill an embedding cache (JSON lines; keep it outside the repository)
  --misses N               print N questions whose gold paragraph was retrieved but whose answer misses the gold span (default 10)
  --keep                   keep the collection
  --json FILE              also write the summary and per-question results as JSON`;

type Row = {
  id: string;
  question: string;
  gold: string[];
  goldRetrieved: boolean;
  goldRank: number | null;
  docs: number;
  answer: RagAnswer | null;
  containsGold: boolean;
  citedContainsGold: boolean;
};

const holds = (text: string, spans: readonly string[]): boolean => {
  const haystack = normalizeForMatch(text);
  return spans.some((span) => normalizeForMatch(span) !== '' && haystack.includes(normalizeForMatch(span)));
};

const pct = (part: number, whole: number): string => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ...cmrcArgOptions('bench_cmrc_answers'),
      misses: { type: 'string', default: '10' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  console.log(`machine: ${describeMachine()}`);
  const cmrc = await openCmrcIndex({
    data: values.data,
    paragraphs: optionalInt(values.paragraphs),
    questions: optionalInt(values.questions),
    collection: values.collection,
    flush: true,
    embeddingCache: values['embedding-cache'],
  });
  // The configured provider, as a worker would choose it: offline unless MODEL_PROVIDER / OPENAI_API_KEY… say otherwise.
  const models = selectChatModels(cmrc.config, { offline: createOfflineChatModels }).models;
  try {
    const { questions, articles, counts, config } = cmrc;
    console.log(
      `CMRC 2018 dev: ${articles.length} paragraphs (${counts.l3} leaf chunks), ${questions.length} questions; top_k ${config.retrieval.topK}; ` +
        `answerer ${models.answerModel}; indexed in ${fmt(cmrc.indexS)} s`,
    );
    const rows: Row[] = new Array(questions.length);
    const answerMs: number[] = [];
    const report = progressReporter('answer', questions.length, 15_000);
    let done = 0;
    const started = performance.now();
    await pool(questions, Math.max(1, Number(values.concurrency)), async (question, i) => {
      const { result } = await cmrc.retrieve(question.question, question.id);
      const filenames = result.docs.map((doc) => String(doc.filename));
      const rank = filenames.indexOf(question.gold);
      let answer: RagAnswer | null = null;
      if (result.docs.length > 0) {
        const before = performance.now();
        answer = await writeVerifiedAnswer(models, { question: question.question, docs: result.docs }, 1, () => performance.now());
        answerMs.push(performance.now() - before);
      }
      rows[i] = {
        id: question.id,
        question: question.question,
        gold: question.answers,
        goldRetrieved: rank >= 0,
        goldRank: rank < 0 ? null : rank + 1,
        docs: result.docs.length,
        answer,
        // The markers are annotations, not words of the answer: "分为两个部份[1]。" says "分为两个部份。".
        containsGold: answer !== null && holds(answer.text.replace(CITATION_MARKER, ''), question.answers),
        citedContainsGold: answer !== null && answer.citations.some((citation) => holds(citation.quote, question.answers)),
      };
      report(++done);
    });
    const seconds = (performance.now() - started) / 1000;

    const all = rows;
    const retrieved = rows.filter((row) => row.goldRetrieved);
    const answered = rows.filter((row) => row.answer !== null);
    const count = (subset: Row[], pred: (row: Row) => boolean) => subset.filter(pred).length;
    const lengths = summarize(answered.map((row) => [...(row.answer?.text ?? '')].length));
    const citations = summarize(answered.map((row) => row.answer?.citations.length ?? 0));
    const statuses = answered.reduce<Record<string, number>>((acc, row) => {
      const status = row.answer?.verification.status ?? 'none';
      return { ...acc, [status]: (acc[status] ?? 0) + 1 };
    }, {});
    console.log('');
    console.log(`% of questions (n = ${all.length}; gold paragraph in the final evidence: ${retrieved.length}, ${pct(retrieved.length, all.length)} %)`);
    console.log(
      table(
        ['measure', 'all questions', 'gold paragraph retrieved'],
        [
          ['answer text contains a gold answer span', pct(count(all, (r) => r.containsGold), all.length), pct(count(retrieved, (r) => r.containsGold), retrieved.length)],
          ['a cited sentence (quote) contains it', pct(count(all, (r) => r.citedContainsGold), all.length), pct(count(retrieved, (r) => r.citedContainsGold), retrieved.length)],
          ['answers verified (every citation and sentence)', pct(statuses.verified ?? 0, answered.length), pct(count(retrieved, (r) => r.answer?.verification.status === 'verified'), retrieved.length)],
        ],
      ),
    );
    console.log(`verification: ${JSON.stringify(statuses)} of ${answered.length} answers (${all.length - answered.length} questions had no evidence)`);
    console.log(
      `answer length (characters): mean ${fmt(lengths.mean)}, p50 ${fmt(lengths.p50, 0)}, p95 ${fmt(lengths.p95, 0)}, max ${fmt(lengths.max, 0)}; ` +
        `citations per answer: mean ${fmt(citations.mean, 2)}, max ${fmt(citations.max, 0)}`,
    );
    const writer = summarize(answerMs);
    console.log(`writer time per answer: p50 ${fmt(writer.p50, 2)} ms, p95 ${fmt(writer.p95, 2)} ms; whole run ${fmt(seconds)} s; load average ${loadAverage()}`);
    const misses = retrieved.filter((row) => !row.containsGold).slice(0, Number(values.misses));
    if (misses.length > 0) {
      console.log('');
      console.log(`gold paragraph retrieved, gold span not in the answer (first ${misses.length}):`);
      for (const row of misses) console.log(`  ${row.id} ${row.question} | gold ${JSON.stringify(row.gold)} | rank ${row.goldRank} | answer ${JSON.stringify(row.answer?.text.slice(0, 160) ?? null)}`);
    }
    if (values.json) {
      writeFileSync(values.json, JSON.stringify({ machine: describeMachine(), n: all.length, retrieved: retrieved.length, statuses, lengths, citations, rows }, null, 1));
    }
  } finally {
    await cmrc.close({ keep: values.keep });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
