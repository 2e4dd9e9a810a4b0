import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseConfig, type RagConfig } from '../../core/config';
import type { Embedder, LeafStore, ParentStore } from '../../activities/ports';
import { buildHierarchy, LEAF_LEVEL } from '../../core/ingest/hierarchy';
import { REPO_ROOT } from '../../runtime/repo-root';

/*
 * Helpers shared by the knowledge-store benchmarks (bench/ingest.ts, bench/retrieve.ts, bench/eval-cmrc.ts):
 * configuration, statistics, where-it-ran notes, a seeded PRNG, synthetic vectors, and timing wrappers around the
 * ports (they add a stopwatch, never change what the real adapter does).
 */

export { REPO_ROOT };

/** CMRC 2018 dev, read in place (never copied into the repository). */
export const DEFAULT_CMRC_FILE = path.resolve(REPO_ROOT, '..', 'shared', 'eval', 'cmrc2018', 'cmrc2018_dev.json');

/** ragtime's configuration from the environment, with bench-specific overrides (collection, data dir, …). */
export function benchConfig(overrides: Record<string, string>): RagConfig {
  return parseConfig({ ...process.env, ...overrides });
}

export type Summary = { n: number; mean: number; p50: number; p95: number; p99: number; min: number; max: number };

/** Nearest-rank percentile of already sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    mean,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export const fmt = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** A markdown table. */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The pid of the first process whose command line contains every one of `needles`, from /proc. */
export function findProcess(...needles: string[]): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (needles.every((needle) => cmdline.includes(needle))) return Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  return null;
}

/** Resident set size of a process in MiB, or null. */
export function rssMiB(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}

/** The Milvus Lite server that serves `address` (host:port), found by its command line. */
export function milvusLitePid(address: string): number | null {
  const port = address.split(':').pop() ?? '';
  return findProcess('milvus-lite', `--port ${port}`);
}

/** Load average now, e.g. "2.31 2.10 1.95". */
export const loadAverage = (): string => os.loadavg().map((v) => v.toFixed(2)).join(' ');

export function describeMachine(): string {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const cpu = /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1]?.trim() ?? 'unknown CPU';
  const gib = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${os.cpus().length} CPUs (${cpu}), ${gib} GiB RAM, Node ${process.version}; load average ${loadAverage()}`;
}

/** mulberry32: a small seeded PRNG, so that a synthetic corpus is the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal sample (Box–Muller). */
function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export function normalize(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}

/** A random unit vector, uniform on the sphere. */
export function randomUnitVector(random: () => number, dim: number): number[] {
  return normalize(Array.from({ length: dim }, () => gaussian(random)));
}

/** `base` moved by a random direction of relative size `noise`, normalized again. */
export function nearby(base: readonly number[], noise: number, random: () => number): number[] {
  const direction = randomUnitVector(random, base.length);
  return normalize(base.map((x, i) => x + noise * direction[i]!));
}

/** Accumulated wall time and calls of one wrapped operation. */
export class Stopwatch {
  ms = 0;
  calls = 0;
  items = 0;

  reset(): void {
    this.ms = this.calls = this.items = 0;
  }

  async time<T>(items: number, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.ms += performance.now() - started;
      this.calls += 1;
      this.items += items;
    }
  }
}

/** An Embedder that times the passages and queries it embeds through `inner`. */
export function timedEmbedder(inner: Embedder, passages: Stopwatch, queries = new Stopwatch()): Embedder {
  // What ingestion reads of the embedder (request size, requests in flight, timeouts) passes through.
  return {
    model: inner.model,
    dim: inner.dim,
    ...(inner.endpoint === undefined ? {} : { endpoint: inner.endpoint }),
    ...(inner.batchSize === undefined ? {} : { batchSize: inner.batchSize }),
    ...(inner.concurrency === undefined ? {} : { concurrency: inner.concurrency }),
    ...(inner.timeoutMsFor ? { timeoutMsFor: (texts: number) => inner.timeoutMsFor!(texts) } : {}),
    embedPassages: (texts, call) => passages.time(texts.length, () => inner.embedPassages(texts, call)),
    embedQueries: (texts, call) => queries.time(texts.length, () => inner.embedQueries(texts, call)),
  };
}

/** Random unit vectors, instantly: ingestion without the embedder's cost (Milvus + SQL only). */
export function randomEmbedder(dim: number, seed = 1): Embedder {
  const random = seededRandom(seed);
  const embed = async (texts: string[]) => texts.map(() => randomUnitVector(random, dim));
  return { model: `random-unit-${dim}`, dim, embedPassages: embed, embedQueries: embed };
}

/** Returns precomputed query vectors instantly (retrieval timed without the embedder). */
export function precomputedQueryEmbedder(dim: number, vectors: ReadonlyMap<string, number[]>): Embedder {
  return {
    model: `precomputed-${dim}`,
    dim,
    embedQueries: async (texts) =>
      texts.map((text) => {
        const vector = vectors.get(text);
        if (!vector) throw new Error(`no precomputed vector for query ${JSON.stringify(text.slice(0, 40))}`);
        return vector;
      }),
    embedPassages: async () => {
      throw new Error('the precomputed embedder embeds queries only');
    },
  };
}

/** A LeafStore whose inserts and deletes are timed (searches pass through). */
export function timedLeafStore(inner: LeafStore, inserts: Stopwatch, deletes: Stopwatch): LeafStore {
  return {
    ensureCollection: () => inner.ensureCollection(),
    // issue 42 §1: the inner store's chunking decides what storeFile embeds; without it a new collection would get plain leaves.
    ...(inner.chunking ? { chunking: () => inner.chunking!() } : {}),
    exists: () => inner.exists(),
    insertLeaves: (leaves) => inserts.time(leaves.length, () => inner.insertLeaves(leaves)),
    deleteByDocument: (docId) => deletes.time(0, () => inner.deleteByDocument(docId)),
    vectorsOfDocument: (docId, model) => inner.vectorsOfDocument(docId, model),
    countByDocument: (docId) => inner.countByDocument(docId),
    countLeaves: () => inner.countLeaves(),
    documentsAmong: (docIds) => inner.documentsAmong(docIds),
    flush: () => inner.flush(),
    searchDense: (vector, search) => inner.searchDense(vector, search),
    searchBm25: (text, search) => inner.searchBm25(text, search),
    close: () => inner.close(),
  };
}

/** A ParentStore whose writes and deletes are timed. */
export function timedParentStore(inner: ParentStore, writes: Stopwatch, deletes: Stopwatch): ParentStore {
  return {
    replaceDocument: (docId, chunks) => writes.time(chunks.length, () => inner.replaceDocument(docId, chunks)),
    deleteDocument: (docId) => deletes.time(0, () => inner.deleteDocument(docId)),
    getByIds: (ids) => inner.getByIds(ids),
    countByDocument: (docId) => inner.countByDocument(docId),
  };
}

/** Runs `work` over `items` with at most `concurrency` in flight, in order of start. */
export async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
}

/** A progress line on stderr, at most every `everyMs`, and always for the last item. */
export function progressReporter(label: string, total: number, everyMs = 5000): (done: number, extra?: string) => void {
  const started = performance.now();
  let last = 0;
  return (done, extra = '') => {
    const now = performance.now();
    if (done < total && now - last < everyMs) return;
    last = now;
    const seconds = (now - started) / 1000;
    const rate = done / Math.max(seconds, 1e-9);
    const eta = rate > 0 ? (total - done) / rate : Number.NaN;
    process.stderr.write(`${label}: ${done}/${total} in ${fmt(seconds)} s (${fmt(rate)}/s, eta ${fmt(eta, 0)} s)${extra ? `; ${extra}` : ''}\n`);
  };
}

/** One CMRC 2018 article: its single paragraph and the questions asked about it, with their gold answer spans. */
export type CmrcArticle = { id: string; title: string; context: string; questions: Array<{ id: string; question: string; answers: string[] }> };

/** Reads CMRC 2018 (SQuAD v1 format): one article per paragraph (the dev split has exactly one). */
export function loadCmrc(file: string): CmrcArticle[] {
  if (!existsSync(file)) {
    throw new Error(`CMRC 2018 dev not found at ${file}: pass --data <cmrc2018_dev.json> (see ../shared/eval/README.md)`);
  }
  type Raw = {
    data: Array<{ id: string; title: string; paragraphs: Array<{ id: string; context: string; qas: Array<{ id: string; question: string; answers?: Array<{ text: string }> }> }> }>;
  };
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Raw;
  return raw.data.flatMap((article) =>
    article.paragraphs.map((paragraph, i) => ({
      id: article.paragraphs.length === 1 ? article.id : `${article.id}_${i}`,
      title: article.title,
      context: paragraph.context,
      questions: paragraph.qas.map((qa) => ({ id: qa.id, question: qa.question, answers: [...new Set((qa.answers ?? []).map((answer) => answer.text))] })),
    })),
  );
}

/*
 * Synthetic mixed Chinese/English text with natural-language term statistics: BM25's cost on Milvus Lite grows with
 * the posting lists a query touches, so the vocabulary must not be tiny (every word in every chunk) nor flat. Words
 * are drawn from a Zipf distribution (s = 1) over a few thousand generated words, with a share of function words
 * (的, 是, the, of, …) as in real text, plus topic words that tie a chunk to its siblings.
 */
const ENGLISH_TOP = (
  'retrieval vector index milvus temporal workflow activity embedding query passage document chunk parent leaf ' +
  'merge rerank threshold score latency throughput cluster segment collection schema analyzer tokenizer sparse dense ' +
  'hybrid fusion rank candidate filter server client network storage memory cache batch stream worker queue signal ' +
  'update history replay timer retry policy failure error timeout recovery snapshot checkpoint partition replica'
).split(' ');
const ENGLISH_FUNCTION = 'the of and in to is for with on as by that from at this are be'.split(' ');
const SYLLABLES = 'ka lo mi ren tor vex sun dar pel qui zan bor lin mar tes ol ur en is ta ro ge ni pa so'.split(' ');
const CHINESE_FUNCTION = '的 是 在 了 和 有 与 为 中 这 一个 我们 可以 以及 也 都 而 及 等 对'.split(' ');
const CHINESE_CHARS =
  '国人年大中学生会家时地出上作成方动同工下过子说产种面而后多定行法所民得经进着部度电力里如水化高自理起小物现实' +
  '加量体制机当使点从业本去把性好应开合还因由其些然前外天政日那社义事平形相全表间样关各重新线内数正心反明看原又' +
  '利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展果料象员革位入常文总次品式' +
  '活设及管特件长求老头基资边流路级少图山统接知较将组见计别手角期根论运农指几区强放决西被干做必战先回则任取据处';

/** Cumulative Zipf weights (s = 1) for `n` ranks, for sampling by binary search. */
function zipfTable(n: number): number[] {
  const table: number[] = [];
  let sum = 0;
  for (let rank = 1; rank <= n; rank += 1) {
    sum += 1 / rank;
    table.push(sum);
  }
  return table.map((x) => x / sum);
}

function zipfPick<T>(items: readonly T[], table: readonly number[], random: () => number): T {
  const u = random();
  let lo = 0;
  let hi = table.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (table[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return items[lo]!;
}

function generatedVocabulary(): { chinese: string[]; english: string[] } {
  const random = seededRandom(12345);
  const chinese = new Set<string>();
  while (chinese.size < 5000) {
    const a = CHINESE_CHARS[Math.floor(random() * CHINESE_CHARS.length)]!;
    const b = CHINESE_CHARS[Math.floor(random() * CHINESE_CHARS.length)]!;
    chinese.add(a + b);
  }
  const english = new Set<string>(ENGLISH_TOP);
  while (english.size < 3000) {
    const parts = 2 + Math.floor(random() * 2);
    english.add(Array.from({ length: parts }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]!).join(''));
  }
  return { chinese: [...chinese], english: [...english] };
}

const VOCABULARY = generatedVocabulary();
const CHINESE_ZIPF = zipfTable(VOCABULARY.chinese.length);
const ENGLISH_ZIPF = zipfTable(VOCABULARY.english.length);

export type WordSource = { english: readonly string[]; chinese: readonly string[] };
/** The generated content vocabularies (most frequent first). */
export const WORDS: WordSource = VOCABULARY;

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

/** A content word drawn by frequency (Zipf). */
export function zipfWord(random: () => number, chinese: boolean): string {
  return chinese ? zipfPick(VOCABULARY.chinese, CHINESE_ZIPF, random) : zipfPick(VOCABULARY.english, ENGLISH_ZIPF, random);
}

/** A Chinese or English "sentence": function words, Zipf-drawn content words and some of the topic words. */
export function mixedSentence(random: () => number, topic: readonly string[]): string {
  const chinese = random() < 0.6;
  const words: string[] = [];
  const length = 8 + Math.floor(random() * 10);
  for (let i = 0; i < length; i += 1) {
    const u = random();
    if (u < 0.15 && topic.length > 0) words.push(pick(topic, random));
    else if (u < 0.45) words.push(pick(chinese ? CHINESE_FUNCTION : ENGLISH_FUNCTION, random));
    else words.push(zipfWord(random, chinese));
  }
  return chinese ? `${words.join('')}。` : `${words.join(' ')}. `;
}

/** A paragraph of roughly `chars` characters of mixed sentences. */
export function mixedParagraph(random: () => number, topic: readonly string[], chars: number): string {
  let text = '';
  while (text.length < chars) text += mixedSentence(random, topic);
  return text;
}

/** A few topic words (two Chinese, two English) from the less frequent part of the vocabulary. */
export function topicWords(random: () => number): string[] {
  const rare = (items: readonly string[]) => items[100 + Math.floor(random() * (items.length - 100))]!;
  return [rare(VOCABULARY.chinese), rare(VOCABULARY.chinese), rare(VOCABULARY.english), rare(VOCABULARY.english)];
}

/**
 * The leaf texts ingestion embeds for CMRC 2018 dev: documents of four paragraphs each (as bench/ingest.ts builds
 * them), split by ragtime's splitter (core/ingest/hierarchy.ts); the first `articles` paragraphs only, when given.
 */
export function cmrcLeafTexts(file: string, articles = Infinity): string[] {
  const paragraphs = loadCmrc(file).slice(0, articles);
  const leaves: string[] = [];
  for (let i = 0; i < paragraphs.length; i += 4) {
    const text = paragraphs.slice(i, i + 4).map((a) => `${a.title}\n\n${a.context}`).join('\n\n');
    const chunks = buildHierarchy({ filename: 'bench.txt', file_path: 'bench.txt', file_type: 'Text', pages: [{ page_number: 0, text }] });
    leaves.push(...chunks.filter((chunk) => chunk.chunk_level === LEAF_LEVEL).map((chunk) => chunk.text));
  }
  return leaves;
}
