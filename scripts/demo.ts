/**
 * `make demo`, the guided tour (issue 5 §4): one question per route of the RAG graph, asked of the worker that
 * scripts/demo.sh started over the sample knowledge base it ingested (samples/knowledge). Each stop prints its
 * outcome in a few lines (result, route path, top evidence, the question asked back) with its Temporal UI link;
 * the tour answers one clarification and picks one option itself, and leaves one run waiting for `ragtime answer`.
 *
 * The questions are chosen for the offline policy provider (docs/offline-policy.md); with it, a stop that does not
 * take its route is reported and the tour exits 1. Run it alone with `npx tsx scripts/demo.ts` once the services,
 * a worker and the ingestion are in place.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { routePath } from '../cli/render/route-path';
import { noKnowledgeText } from '../core/answer/no-knowledge-text';
import { newRagWorkflowId, RagClient } from '../client/rag-client';
import { loadConfig } from '../runtime/load-config';
import { repoPath } from '../runtime/repo-root';
import { securedConnection } from '../runtime/temporal-connection';
import type { RagSubTrace } from '../core/schemas/rag-trace';
import type { RagOutcome } from '../core/schemas/run-io';

// One conversation per tour (issue 25 §1): a session's turns are its history, so a second tour must not read the
// first one's turns. The stops are asked in order in it; the follow-up stop is read with the turn before it.
// scripts/demo.sh names it (RAGTIME_DEMO_SESSION), so that it can make the console's tenant its owner afterwards.
const SESSION = process.env.RAGTIME_DEMO_SESSION?.trim() || `demo-${randomUUID().slice(0, 8)}`;
const KNOWLEDGE = repoPath('samples', 'knowledge');

type Stop = {
  /** Part of the workflow id (rag-demo-<key>-<8 hex>), so runs are easy to find in the UI. */
  key: string;
  title: string;
  question: string;
  /** What the tour replies when the run asks back: a text, or an option number. */
  reply?: { text: string } | { option: number };
  /** The route this stop shows under the offline policy, checked on the final outcome. */
  shows: string;
  took: (first: RagOutcome, last: RagOutcome) => boolean;
};

const TOUR: Stop[] = [
  // First: with no earlier turn, "这款产品" can only be asked back (later in the conversation it would be read as
  // the product talked about).
  {
    key: 'clarify', title: 'clarify: "这款产品" names no product, so it asks which one; the tour answers',
    question: '这款产品的价格是多少？', reply: { text: 'Aurora X2' },
    shows: 'clarify', took: (first, last) => first.route === 'clarify' && last.route === 'answer',
  },
  {
    key: 'answer', title: 'answer: the evidence covers the question', question: 'Aurora X2 路由器的保修期是多久？',
    shows: 'answer', took: (_f, last) => last.status === 'completed' && last.route === 'answer',
  },
  {
    key: 'follow-up', title: 'follow-up: read with the turn before it, as a question about the Nimbus C1\'s warranty',
    question: '那 Nimbus C1 摄像头呢？',
    shows: 'answer', took: (_f, last) => last.route === 'answer' && last.conversation?.standaloneQuestion === 'Nimbus C1 摄像头的保修期是多久？',
  },
  {
    key: 'answer-en', title: 'answer, in English (the knowledge base is bilingual)', question: 'What is new in Orbit CLI 2.1?',
    shows: 'answer', took: (_f, last) => last.status === 'completed' && last.route === 'answer',
  },
  {
    key: 'rewrite', title: 'rewrite: partial evidence, so one step-back rewrite; still partial, so it asks (left waiting)',
    question: '丹瑾的护盾技能冷却时间是多少？',
    shows: 'rewrite', took: (_f, last) => Boolean(last.rag_trace?.rewrite_method) && last.status === 'awaiting_input',
  },
  {
    key: 'scope_select', title: 'scope_select: two manuals of different products answer it, so it offers both; the tour picks one',
    question: '怎么重置管理密码？', reply: { option: 1 },
    shows: 'scope_select', took: (first, last) => first.route === 'scope_select' && (first.hitl?.options.length ?? 0) >= 2 && last.route === 'answer',
  },
  {
    key: 'no_knowledge', title: 'no_knowledge: nothing in the knowledge base is about this', question: '量子计算机的散热怎么做？',
    shows: 'no_knowledge', took: (_f, last) => last.status === 'completed' && last.route === 'no_knowledge',
  },
  {
    key: 'complex', title: 'complex: a comparison, split into sub-questions retrieved in parallel, then merged',
    question: '比较 Aurora X2 与 Nimbus C1 的保修期',
    shows: 'complex', took: (_f, last) => last.rag_trace?.complexity === 'complex' && (last.rag_trace.sub_traces?.length ?? 0) >= 2,
  },
];

// loadConfig reads the codec key file (the one scripts/demo.sh generates), so the tour's payloads are encrypted.
const config = loadConfig(process.env);
// The worker's provider, chosen as selectChatModels does: MODEL_PROVIDER, or openai when a key and both models are set.
const { provider, apiKey, fastModel, gradeModel } = config.models;
const offline = provider === 'offline' || (provider === 'auto' && !(apiKey && fastModel && gradeModel));
const uiBase = config.temporal.uiUrl;
const uiRun = (workflowId: string) => `${uiBase}/namespaces/${config.temporal.namespace}/workflows/${encodeURIComponent(workflowId)}`;
const out = (line = '') => process.stdout.write(`${line}\n`);
const field = (label: string, value: string) => out(`     ${label.padEnd(7)} ${value}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The top evidence: a finished run's docs; else (waiting, or nothing returned) what its last retrieval found. */
function topFile(outcome: RagOutcome | RagSubTrace): string {
  const trace = 'rag_trace' in outcome ? outcome.rag_trace : outcome;
  const returned = 'docs' in outcome ? outcome.docs : (trace?.retrieved_chunks ?? []);
  if (returned.length) return `${returned[0]?.filename ?? '?'}${returned.length > 1 ? ` (first of ${returned.length})` : ''}`;
  const found = [trace?.retrieved_chunks, trace?.rewrite_retrieved_chunks, trace?.initial_retrieved_chunks].find((chunks) => chunks?.length);
  const closest = found?.[0]?.filename;
  const waiting = 'status' in outcome && outcome.status === 'awaiting_input';
  if (waiting) return closest ? `${closest} (retrieved; returned once answered)` : '(none)';
  return closest ? `none returned (closest: ${closest})` : 'none returned';
}

/** Terminal columns of a text: CJK and full-width characters take two. */
function displayWidth(text: string): number {
  return [...text].reduce((width, ch) => width + (/[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(ch) ? 2 : 1), 0);
}

function result(outcome: RagOutcome, ms: number): string {
  return `${outcome.status} · route ${outcome.route ?? '-'} · status ${outcome.retrieval_status ?? '-'} · ${seconds(ms)}`;
}

async function timed<T>(call: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await call();
  return [value, performance.now() - started];
}

async function visit(rag: RagClient, stop: Stop, index: number): Promise<{ stop: Stop; last: RagOutcome; ok: boolean }> {
  out();
  out(`${String(index + 1).padStart(2)}/${TOUR.length} ${stop.title}`);
  field('ask', stop.question);
  const workflowId = newRagWorkflowId(`${SESSION}-${stop.key}`);
  const [first, askMs] = await timed(() => rag.ask(stop.question, { sessionId: SESSION, workflowId }));
  field('result', result(first, askMs));
  const read = first.conversation;
  if (read && read.standaloneQuestion !== read.question) field('read as', `${read.standaloneQuestion}  (${read.condensedBy}: ${read.why})`);
  let last = first;
  if (first.status === 'awaiting_input' && first.hitl) {
    field('asks', first.hitl.prompt);
    if (first.hitl.options.length) field('', first.hitl.options.map((option, i) => `${i + 1}. ${option}`).join('   '));
    if (stop.reply) {
      const text = 'text' in stop.reply ? stop.reply.text : (first.hitl.options[stop.reply.option - 1] ?? String(stop.reply.option));
      field('reply', 'option' in stop.reply ? `${stop.reply.option} → "${text}"` : `"${text}"`);
      const [next, answerMs] = await timed(() => rag.answer(workflowId, text));
      field('result', result(next, answerMs));
      last = next;
    }
  }
  if (last.answer) {
    field('answer', last.answer.text);
    last.answer.citations.forEach((citation, i) =>
      field(i === 0 ? 'sources' : '', `[${citation.marker}] ${citation.filename ?? '?'} p${citation.page_number ?? '-'}: "${citation.quote}"`),
    );
    field('checked', `${last.answer.verification.status} (${last.answer.model})`);
  } else if (last.status === 'completed' && last.route === 'no_knowledge') {
    field('answer', noKnowledgeText(stop.question));
  }
  field('path', routePath(last).join(' → '));
  const trace = last.rag_trace;
  if (trace?.step_back_question) field('rewrite', trace.step_back_question);
  (trace?.sub_traces ?? []).forEach((sub, i) =>
    field(i === 0 ? 'subs' : '', `${i + 1}. ${trace?.sub_questions?.[i] ?? sub.query ?? ''} → ${sub.route ?? '-'} (top ${topFile(sub).replace(/ \(first of \d+\)$/, '')})`),
  );
  if (trace?.evidence_reason) field('why', trace.evidence_reason);
  field('top', topFile(last));
  if (last.status === 'awaiting_input') field('waiting', `for an answer: npx ragtime answer ${workflowId} "<your answer>"`);
  if (last.error) field('error', `${last.error.type}: ${last.error.message}`);
  field('UI', uiRun(workflowId));
  const ok = stop.took(first, last);
  if (!ok && offline) field('!!', `expected this stop to show the ${stop.shows} route`);
  return { stop, last, ok };
}

function tryNext(visits: Array<{ stop: Stop; last: RagOutcome }>): void {
  const idOf = (key: string) => visits.find((v) => v.stop.key === key)?.last.workflowId ?? '<workflowId>';
  const waiting = visits.filter((v) => v.last.status === 'awaiting_input');

  const lines: Array<[string, string]> = [
    ['npx ragtime ask "Nimbus C1 摄像头支持多大的存储卡？"', 'ask your own question, with live progress'],
    ['npx ragtime ask "怎么重置管理密码？"', 'on a terminal it asks you back: pick a product by number'],
    ...waiting.map((v): [string, string] => [`npx ragtime answer ${v.last.workflowId} "<your answer>"`, 'answer the run the tour left waiting']),
    [`npx ragtime trace ${idOf('complex')}`, 'route path, grades, retrieval meta and rounds of a run'],
    ['npx ragtime runs --status awaiting_input', 'runs waiting for a person (Temporal visibility)'],
    [`npx ragtime runs --session ${SESSION}`, "this tour's runs"],
    ['npx ragtime search "保修期"', `one retrieval in-process, with its diagnostics (knowledge base ${config.milvus.collection})`],
    ['npx ragtime docs list', 'the documents of the knowledge base (ragtime kb list: all of them)'],
    ['npx ragtime doctor', 'the settings every command uses and where each came from, and a check of each service'],
    ['npx ragtime ingest <files or folders>', 'add your own documents (.md .txt .html .pdf .docx)'],
    ['npx ragtime --help', 'every command, and the exit codes'],
  ];
  out();
  out('Try next');
  // Another shell needs nothing exported: every ragtime command reads the ports and the knowledge base from the data
  // dir's settings file (issue 33 §1).
  const width = Math.max(...lines.map(([command]) => displayWidth(command)));
  for (const [command, what] of lines) out(`  ${command}${' '.repeat(width - displayWidth(command))}  ${what}`);
  out(`  Temporal UI, this tour's runs: ${uiBase}/namespaces/${config.temporal.namespace}/workflows?query=${encodeURIComponent(`RagSessionId="${SESSION}"`)}`);
}

async function main(): Promise<void> {
  const files = readdirSync(KNOWLEDGE).filter((name) => !name.startsWith('.'));
  const models = offline ? 'offline policy (no API key)' : `openai (FAST_MODEL ${fastModel}, GRADE_MODEL ${gradeModel})`;
  out(`ragtime tour: ${TOUR.length} questions over samples/knowledge (${files.length} documents), one per route`);
  out(`  models ${models} · knowledge base ${config.milvus.collection} · task queue ${config.temporal.taskQueue} · session ${SESSION}`);
  const rag = await RagClient.connect({
    address: config.temporal.address,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    connection: securedConnection(config.temporal),
    codec: config.codec,
  });
  const started = performance.now();
  const visits: Array<{ stop: Stop; last: RagOutcome; ok: boolean }> = [];
  try {
    for (const [i, stop] of TOUR.entries()) visits.push(await visit(rag, stop, i));
  } finally {
    await rag.close();
  }
  const missed = visits.filter((v) => !v.ok);
  out();
  const seen = visits.filter((v) => v.ok).map((v) => v.stop.shows);
  out(`Tour done in ${seconds(performance.now() - started)}: ${[...new Set(seen)].join(', ')} seen${missed.length ? `; not seen: ${missed.map((v) => v.stop.shows).join(', ')}` : ''}.`);
  tryNext(visits);
  if (missed.length && offline) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
