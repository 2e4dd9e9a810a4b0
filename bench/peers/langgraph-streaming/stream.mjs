// The peer of bench/streaming.ts (issue 25 §3): bench.mjs's graph (a copy of ../shared/peers/langgraph-bench) whose
// `answer` node calls a chat model instead of sleeping — ChatOpenAI from @langchain/openai with streaming on, against
// the benchmark's loopback model (the same one ragtime's answer writer reads) — and a caller that follows the run
// with graph.stream(…, { streamMode: ['messages', 'values'] }), the way LangGraph.js streams a node's tokens. The
// other nodes sleep as in bench.mjs. One long-lived process, so the benchmark can alternate runs with ragtime's:
//
//   node stream.mjs --base-url http://127.0.0.1:PORT/v1 [--llm-ms 400] [--embed-ms 20] [--search-ms 20] [--jitter 0.2]
//
// stdin: one line per run, {"id": "…", "kind": "fast"}; stdout: {"ready": true} once, then per run one JSON line with
// epoch-ms times (performance.timeOrigin + performance.now(), comparable with the benchmark's): started, each answer
// token chunk received (at, chars so far), done (the stream ended), and the answer's text.
import { StateGraph, Annotation, START, END, Send, interrupt } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { ChatOpenAI } from '@langchain/openai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const argv = process.argv.slice(2);
const arg = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt; };
const LLM_MS = Number(arg('llm-ms', 0));
const EMBED_MS = Number(arg('embed-ms', 0));
const SEARCH_MS = Number(arg('search-ms', 0));
const JITTER = Number(arg('jitter', 0));
const BASE_URL = arg('base-url', '');
if (!BASE_URL) throw new Error('--base-url of the streaming model is required');
const DB = arg('db', path.join(os.tmpdir(), `langgraph-stream-${process.pid}.sqlite`));
for (const f of [DB, DB + '-wal', DB + '-shm']) fs.rmSync(f, { force: true });
const now = () => performance.timeOrigin + performance.now();

const sleep = (ms) => (ms > 0 ? new Promise((r) => setTimeout(r, ms * (1 + JITTER * (2 * Math.random() - 1)))) : Promise.resolve());
const llm = () => sleep(LLM_MS);
// The model's own latency (first token after llm-ms, then one token per token-ms) is the loopback model's.
const model = new ChatOpenAI({ model: 'peer-answer', apiKey: 'bench-peer', configuration: { baseURL: BASE_URL }, streaming: true, maxRetries: 0, temperature: 0 });

const chunk = (i) => ({ filename: `doc${i}.md`, page_number: 1, text: `chunk ${i} `.repeat(40), score: 0.03 - i * 0.001, chunk_id: `c${i}` });
const docs = Array.from({ length: 8 }, (_, i) => chunk(i));
const meta = { retrieval_mode: 'hybrid', retrieval_pipeline: 'recall_merge_rerank', candidate_k: 24, retrieval_top_k: 8, recall_count: 24 };

const State = Annotation.Root({
  question: Annotation(), docs: Annotation(), route: Annotation(), rewrite_count: Annotation(),
  complexity: Annotation(), sub_questions: Annotation(), is_sub: Annotation(), hitl: Annotation(),
  rag_trace: Annotation(),
  sub_results: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

// As in bench.mjs: the scenario travels in the question text so one compiled graph serves all scenarios.
const kindOf = (q) => q.split(' ')[0];
const classify = async (s) => {
  const kind = kindOf(s.question);
  if (kind === 'fast' || kind === 'rewrite' || kind === 'hitl') return { complexity: 'simple' };
  await llm();
  return kind === 'complex' ? { complexity: 'complex', sub_questions: ['sub a', 'sub b', 'sub c'] } : { complexity: 'simple', sub_questions: [] };
};
const retrieve = async (s) => {
  await sleep(EMBED_MS);
  await sleep(SEARCH_MS);
  return { docs, rag_trace: { ...(s.rag_trace || {}), tool_used: true, query: s.question, retrieved_chunks: docs, initial_retrieved_chunks: docs, retrieval_stage: 'initial', ...meta } };
};
const grade = async (s) => {
  await llm();
  let route = 'answer';
  if (kindOf(s.question) === 'rewrite' && !s.rewrite_count) route = 'rewrite';
  if (kindOf(s.question) === 'hitl' && !s.hitl) route = 'clarify';
  return { route, rag_trace: { ...s.rag_trace, route, retrieval_status: route === 'answer' ? 'answerable' : route, evidence_relevance: 'strong' } };
};
const rewrite = async (s) => { await llm(); return { rewrite_count: 1, rag_trace: { ...s.rag_trace, rewrite_method: 'step_back', rewritten_query: s.question + '\n\n退步问题：x' } }; };
const waitHuman = (s) => { const answer = interrupt({ prompt: '请补充型号' }); return { hitl: answer, question: `${s.question} ${answer}` }; };
const subAgent = async (s) => { const r = await grade({ ...s, ...(await retrieve(s)) }); return { sub_results: [{ question: s.question, docs, route: 'answer', rag_trace: r.rag_trace }] }; };
// The only change from bench.mjs: the answer is written by a (streaming) chat model; the config carries LangGraph's
// callbacks, so its tokens reach streamMode "messages".
const answer = async (s, config) => {
  const context = (s.docs || []).map((d, i) => `[${i + 1}] ${d.text}`).join('\n');
  const reply = await model.invoke([{ role: 'system', content: 'Answer from the documents; cite them as [n].' }, { role: 'user', content: `${context}\n\n${s.question}` }], config);
  return { rag_trace: { ...s.rag_trace, answer: reply.content } };
};
const synthesis = (s) => ({ docs: s.sub_results.flatMap((r) => r.docs), route: 'answer', rag_trace: { retrieval_stage: 'synthesis', sub_agent_count: s.sub_results.length, sub_traces: s.sub_results.map((r) => r.rag_trace) } });

const graph = new StateGraph(State)
  .addNode('classify', classify).addNode('retrieve', retrieve).addNode('grade', grade)
  .addNode('rewrite', rewrite).addNode('retrieve_rewritten', retrieve).addNode('wait_human', waitHuman)
  .addNode('sub_agent', subAgent).addNode('synthesis', synthesis).addNode('answer', answer)
  .addEdge(START, 'classify')
  .addConditionalEdges('classify', (s) => (s.complexity === 'complex' ? s.sub_questions.map((q) => new Send('sub_agent', { question: q, is_sub: true })) : 'retrieve'))
  .addEdge('retrieve', 'grade')
  .addConditionalEdges('grade', (s) => (s.route === 'rewrite' ? 'rewrite' : s.route === 'clarify' ? 'wait_human' : 'answer'))
  .addEdge('answer', END)
  .addEdge('rewrite', 'retrieve_rewritten').addEdge('retrieve_rewritten', 'grade')
  .addEdge('wait_human', 'retrieve')
  .addEdge('sub_agent', 'synthesis').addEdge('synthesis', 'answer')
  .compile({ checkpointer: SqliteSaver.fromConnString(DB) });

/** One run, followed as an app streaming the answer would: tokens of the answer node as they come, then the end. */
async function once(id, kind) {
  const config = { configurable: { thread_id: `t-${id}` } };
  const started = now();
  const tokens = [];
  let chars = 0;
  let text = '';
  let last;
  for await (const [mode, payload] of await graph.stream({ question: `${kind} question ${id}`, rewrite_count: 0 }, { ...config, streamMode: ['messages', 'values'] })) {
    if (mode === 'values') { last = payload; continue; }
    const [message, metadata] = payload;
    const content = typeof message.content === 'string' ? message.content : '';
    if (metadata.langgraph_node !== 'answer' || content === '') continue;
    chars += content.length;
    text += content;
    tokens.push({ at: now(), chars });
  }
  const done = now();
  if (last?.route !== 'answer') throw new Error(`${kind}: unexpected route ${last?.route}`);
  return { id, started, tokens, done, text, answer: last.rag_trace?.answer ?? null };
}

const lines = readline.createInterface({ input: process.stdin });
console.log(JSON.stringify({ ready: true, peer: 'langgraph.js 1.7.3 + sqlite checkpointer + @langchain/openai 1.6.0 (streaming)' }));
for await (const line of lines) {
  if (!line.trim()) continue;
  const { id, kind } = JSON.parse(line);
  try {
    console.log(JSON.stringify(await once(id, kind ?? 'fast')));
  } catch (error) {
    console.log(JSON.stringify({ id, error: String(error?.stack ?? error) }));
  }
}
for (const f of [DB, DB + '-wal', DB + '-shm']) fs.rmSync(f, { force: true });
