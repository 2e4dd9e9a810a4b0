import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import { modelCallsOf } from '../../client/run-record';
import type { RagClient } from '../../client/rag-client';
import { RagError } from '../../core/errors';
import { evaluateQuestion, type QuestionResult } from '../../core/eval/evaluate-question';
import { parseGoldenQuestions, type GoldenQuestion } from '../../core/eval/golden-set';
import type { DocumentMeta } from '../../core/knowledge/document-meta';
import { documentPasses, filterClauses, MetadataFilters } from '../../core/retrieval/metadata-filter';
import { buildReport, compareReports, type Comparison, type EvalReport } from '../../core/eval/report';
import { renderHtml, renderMarkdown } from '../../core/eval/render-report';
import type { IngestBatchResult } from '../../core/ingest/ingest-io';
import type { RagOutcome } from '../../core/schemas/run-io';
import type { ingestWorkflow } from '../../workflows/ingest-workflow';
import { RAG_KB } from '../../workflows/search-attributes';
import { SUPPORTED } from '../document-ids';
import type { KnowledgeAdmin } from '../host';

/*
 * `ragtime eval` (DESIGN §5 layer C): a golden set's documents ingested into a knowledge base (or reused when they are
 * there already, byte for byte), every question asked through the real workflows on Temporal with the configured
 * provider, each run's history read for its retrievals, and the report written as JSON, Markdown and HTML.
 */

export type EvalOptions = {
  set: string;
  kb: string;
  concurrency: number;
  out: string;
  taskQueue: string;
  /** Only the first N questions. */
  limit?: number;
  runUrl: (workflowId: string) => string;
  log: (line: string) => void;
};

export type GoldenSet = { name: string; docsDir: string; documents: Array<{ file: string; id: string }>; questions: GoldenQuestion[] };

/** Reads and checks a golden set folder: docs/ and questions.jsonl. */
export function readGoldenSet(dir: string): GoldenSet {
  const root = path.resolve(dir);
  const docsDir = path.join(root, 'docs');
  const questionsFile = path.join(root, 'questions.jsonl');
  if (!existsSync(questionsFile)) throw new RagError('INVALID_INPUT', `${dir} is not a golden set: it has no questions.jsonl (see docs/EVALUATION.md)`);
  const { questions, problems } = parseGoldenQuestions(readFileSync(questionsFile, 'utf8'));
  if (problems.length > 0) throw new RagError('INVALID_INPUT', `${questionsFile}: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`);
  const documents: GoldenSet['documents'] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (SUPPORTED.has(path.extname(entry.name).toLowerCase())) documents.push({ file: full, id: path.relative(docsDir, full).split(path.sep).join('/') });
    }
  };
  if (existsSync(docsDir) && statSync(docsDir).isDirectory()) walk(docsDir);
  const ids = new Set(documents.map((d) => d.id));
  const missing = questions.flatMap((q) => q.gold_doc_ids.filter((id) => !ids.has(id)).map((id) => `${q.id}: ${id}`));
  if (missing.length > 0) throw new RagError('INVALID_INPUT', `gold documents not under ${docsDir}: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
  return { name: path.basename(root), docsDir, documents, questions };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The documents that are not in the knowledge base as they are in the set (new or changed). */
async function toIngest(set: GoldenSet, kb: string, admin: KnowledgeAdmin): Promise<GoldenSet['documents']> {
  const have = new Map((await admin.documents.list(kb)).map((record) => [record.doc_id, record.content_hash]));
  return set.documents.filter((document) => have.get(document.id) !== sha256(document.file));
}

async function ingest(rag: RagClient, options: EvalOptions, documents: GoldenSet['documents']): Promise<IngestBatchResult> {
  const handle = await rag.temporal.workflow.start<typeof ingestWorkflow>('ingestWorkflow', {
    workflowId: `ingest-eval-${randomUUID().slice(0, 8)}`,
    taskQueue: options.taskQueue,
    args: [{ files: documents.map((d) => d.file), ids: documents.map((d) => d.id), kb: options.kb, batchLabel: `eval ${options.set}` }],
    staticSummary: `eval: ingest ${documents.length} document(s) into ${options.kb}`,
    memo: { kb: options.kb },
    typedSearchAttributes: [{ key: RAG_KB, value: options.kb }],
  });
  return handle.result();
}

/** A run of the evaluation that nobody will answer: recorded as it stands, and terminated if it waits for a person. */
async function askUnattended(rag: RagClient, question: string, sessionId: string, kb: string): Promise<RagOutcome> {
  const outcome = await rag.ask(question, { sessionId, kb });
  if (outcome.status === 'awaiting_input') {
    await rag.temporal.workflow.getHandle(outcome.workflowId).terminate('ragtime eval: recorded; nobody answers evaluation runs').catch(() => undefined);
  }
  return outcome;
}

/**
 * A dialogue's follow-up (issue 25 §3): its earlier turns are asked first in its session (they are not scored), and
 * after it the same question alone in a session of its own, so its retrieval can be compared without the turns.
 */
async function askTurns(rag: RagClient, question: GoldenQuestion, options: EvalOptions, session: string): Promise<void> {
  for (const turn of question.turns ?? []) await askUnattended(rag, turn, session, options.kb);
}

async function withoutTurns(rag: RagClient, question: GoldenQuestion, options: EvalOptions, session: string) {
  const alone = await askUnattended(rag, question.question, `${session}-alone`, options.kb);
  return (await rag.getRunRecord(alone.workflowId)).retrievals;
}

/** Asks one question; a run that waits for a person is recorded as it stands and terminated (nobody will answer). */
async function askOne(rag: RagClient, question: GoldenQuestion, options: EvalOptions, session: string, metaOf: MetaOf): Promise<QuestionResult> {
  let outcome: RagOutcome;
  const started = { at: Date.now() };
  try {
    await askTurns(rag, question, options, session);
    started.at = Date.now();
    outcome = await rag.ask(question.question, { sessionId: session, kb: options.kb, ...(question.filters ? { filters: question.filters } : {}) });
  } catch (error) {
    const failure = error instanceof RagError ? { type: error.code, message: error.message } : { type: 'INTERNAL', message: String(error) };
    return evaluateQuestion(question, { workflowId: '', status: 'failed', route: null, retrievalStatus: null, answer: null, retrievals: [], modelCalls: 0, latencyMs: Date.now() - started.at, error: failure });
  }
  const latencyMs = Date.now() - started.at;
  if (outcome.status === 'awaiting_input') {
    await rag.temporal.workflow.getHandle(outcome.workflowId).terminate('ragtime eval: recorded; nobody answers evaluation runs').catch(() => undefined);
  }
  const record = await rag.getRunRecord(outcome.workflowId);
  const followUp = question.turns ? { conversation: outcome.conversation ?? null, retrievalsWithout: await withoutTurns(rag, question, options, session) } : undefined;
  return evaluateQuestion(question, {
    ...(followUp ? { followUp } : {}),
    ...filteredOutOf(question, metaOf),
    workflowId: outcome.workflowId,
    status: outcome.status,
    route: outcome.route,
    retrievalStatus: outcome.retrieval_status,
    answer: outcome.answer,
    trace: outcome.rag_trace,
    retrievals: record.retrievals,
    modelCalls: modelCallsOf(record),
    latencyMs,
    error: outcome.status === 'failed' ? outcome.error : null,
  });
}

/** A document's metadata in the knowledge base, by id (undefined: none, or not there). */
type MetaOf = (docId: string) => DocumentMeta | undefined;

/** Issue 44 §2: the gold documents a question's filters leave out, by their metadata in the knowledge base. */
function filteredOutOf(question: GoldenQuestion, metaOf: MetaOf): { filteredOut?: string[] } {
  if (!question.filters) return {};
  const clauses = filterClauses(MetadataFilters.parse(question.filters));
  const out = question.gold_doc_ids.filter((id) => !documentPasses(id, metaOf(id), clauses));
  return out.length === 0 ? {} : { filteredOut: out };
}

async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
  return results;
}

export type EvalRun = { report: EvalReport; files: { json: string; md: string; html: string }; ingested: number; reused: number; extraDocuments: string[] };

export async function runEval(rag: RagClient, admin: KnowledgeAdmin, set: GoldenSet, options: EvalOptions, previous?: EvalReport): Promise<EvalRun & { comparison?: Comparison }> {
  if (!(await admin.list()).includes(options.kb)) await admin.create(options.kb);
  const pending = await toIngest(set, options.kb, admin);
  if (pending.length > 0) {
    options.log(`ingesting ${pending.length} of ${set.documents.length} document(s) into ${options.kb} …`);
    const batch = await ingest(rag, options, pending);
    const failed = batch.files.filter((file) => file.status === 'failed');
    if (failed.length > 0) throw new RagError('INVALID_INPUT', `ingesting the set failed for ${failed.length} document(s), e.g. ${failed[0]?.doc_id}: ${failed[0]?.error?.message}`);
  } else {
    options.log(`reusing knowledge base ${options.kb}: its ${set.documents.length} document(s) are the set's, byte for byte`);
  }
  const ids = new Set(set.documents.map((d) => d.id));
  const records = await admin.documents.list(options.kb);
  const metas = new Map(records.map((record) => [record.doc_id, record.meta]));
  const extraDocuments = records.map((record) => record.doc_id).filter((id) => !ids.has(id));
  if (extraDocuments.length > 0) options.log(`note: ${options.kb} also holds ${extraDocuments.length} document(s) the set does not name (kept; they take part in retrieval)`);

  const questions = set.questions.slice(0, options.limit);
  // A session per question: golden questions are independent, and a shared session would read each one as a
  // follow-up of those asked before it (issue 25 §1).
  const evalId = `eval-${randomUUID().slice(0, 8)}`;
  const bar = process.stderr.isTTY ? new SingleBar({ format: 'eval [{bar}] {value}/{total} questions  {route}' }, Presets.shades_classic) : null;
  bar?.start(questions.length, 0, { route: '' });
  let done = 0;
  let lastLogged = Date.now();
  const results = await pool(questions, options.concurrency, async (question) => {
    const result = await askOne(rag, question, options, `${evalId}-q${questions.indexOf(question) + 1}`, (id) => metas.get(id));
    done += 1;
    bar?.update(done, { route: `${result.id} → ${result.route ?? result.status}` });
    if (!bar && (Date.now() - lastLogged > 10_000 || done === questions.length)) {
      lastLogged = Date.now();
      options.log(`eval: ${done}/${questions.length} questions`);
    }
    return result;
  });
  bar?.stop();
  const provider = await rag.temporal.workflow
    .getHandle(results.find((r) => r.workflow_id !== '')?.workflow_id ?? 'none')
    .describe()
    .then((description) => String((description.memo as Record<string, unknown> | undefined)?.models ?? 'unknown'))
    .catch(() => 'unknown');
  const report = buildReport({ set: set.name, kb: options.kb, provider, createdAt: new Date().toISOString(), results });
  const comparison = previous ? compareReports(previous, report) : undefined;
  mkdirSync(options.out, { recursive: true });
  const files = { json: path.join(options.out, 'report.json'), md: path.join(options.out, 'report.md'), html: path.join(options.out, 'report.html') };
  writeFileSync(files.json, `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(files.md, renderMarkdown(report, comparison));
  writeFileSync(files.html, renderHtml(report, options.runUrl, comparison));
  return { report, files, ingested: pending.length, reused: set.documents.length - pending.length, extraDocuments, ...(comparison ? { comparison } : {}) };
}
