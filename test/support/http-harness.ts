import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { createActivities } from '../../activities';
import { HEARTBEAT_THROTTLE_MS } from '../../activities/heartbeats';
import { offlineWriteAnswer } from '../../activities/adapters/offline-chat-models';
import type { AnswerRequest, ChatModels, Retriever } from '../../activities/ports';
import type { AnswerDraft } from '../../core/schemas/answer';
import { createAuditStore, type SqlAuditStore } from '../../activities/adapters/sql-audit-store';
import { createAnswerStreamStore, type SqlAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { createSessionOwnerStore, type SqlSessionOwnerStore } from '../../activities/adapters/sql-session-owners';
import { createSessionTurnStore, type SqlSessionTurnStore } from '../../activities/adapters/sql-session-turns';
import { createHttpServer, type HttpServerOptions } from '../../server/http/create-http-server';
import type { KnowledgeApi } from '../../server/http/server-deps';
import { createTenantDirectory, type TenantDirectory } from '../../server/http/tenant-directory';
import { hashToken } from '../../server/http/token-auth';
import { RagClient } from '../../client/rag-client';
import { newTaskQueue, openWorkflowEnv, type WorkflowEnv } from '../workflows/harness';
import { chunk, grade, metaM0, plannerResult } from './scenario';

/*
 * The HTTP API on the real dev server: a worker on a fresh task queue runs the real workflows and activities with
 * deterministic models and retrieval (payloads encrypted with the test keyring, as in every workflow test), and
 * createHttpServer serves a RagClient on that queue. The audit store, the session owners, the session turns and the
 * answer stream's side channel share one SQLite file of a temp dir, as `ragtime serve` and the workers share
 * audit.sqlite (or one PostgreSQL database): the worker's answer writer publishes there, the servers' progress streams
 * read it (issue 25 §2).
 */

/** Two tenants and their (test-only) tokens; the server is configured with the hashes only. */
export const TOKENS = { acme: 'acme-0f1e2d3c4b5a69788796a5b4c3d2e1f0', globex: 'globex-a1b2c3d4e5f60718293a4b5c6d7e8f90' } as const;
export type Tenant = keyof typeof TOKENS;

/**
 * The knowledge bases of the two tenants (DESIGN §4b), run-tagged since Milvus is shared: acme may use its own and
 * the server's default, globex only its own (and so asks in it when it names none).
 */
const KB_TAG = `${Date.now().toString(36)}${process.pid}`;
export const KBS = { default: `http_default_${KB_TAG}`, acme: `acme_kb_${KB_TAG}`, globex: `globex_kb_${KB_TAG}` } as const;
const TENANT_KBS: Record<Tenant, string[]> = { acme: [KBS.acme, KBS.default], globex: [KBS.globex] };
export const bearer = (tenant: Tenant) => ({ authorization: `Bearer ${TOKENS[tenant]}` });
/** The operator's (test-only) token: it opens GET /api/doctor and nothing of a tenant's (issue 35 §3). */
export const OPERATOR_TOKEN = 'operator-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
export const operatorBearer = () => ({ authorization: `Bearer ${OPERATOR_TOKEN}` });

/** Questions in this form take the fast path (no planner) and are answered at the first grade. */
export const simpleQuestion = (name: string) => `${name}是什么属性？`;
/** Questions with this marker are graded "clarify" (options 丹瑾/丹恒) until a person's answer is prepended. */
export const CLARIFY = '哪个角色';
export const clarifyQuestion = (tag: string) => `${CLARIFY}${tag}是什么属性？`;
/** Questions with this marker are graded only after SLOW_MS, so a run stays live while a test watches it. */
export const SLOW = '慢';
export const SLOW_MS = 2_500;

/**
 * Questions with this marker (issue 25 §2) are answered from STREAMED_PASSAGE, one sentence per STREAMED_DELTA_MS, so
 * that a listener of the progress stream sees the answer grow while the run still runs (the offline writer writes its
 * whole answer at once).
 */
export const STREAMED = '逐句';
export const streamedQuestion = (name: string) => `${STREAMED}${name}是什么属性？`;
// Slow enough that a listener polling every 100 ms under a full machine (make test) sees the answer partly written.
export const STREAMED_DELTA_MS = 1_200;
const STREAMED_SENTENCES = ['丹瑾是湮灭属性角色。', '丹瑾的命途是毁灭。', '丹瑾来自仙舟罗浮。'];
const STREAMED_PASSAGE = STREAMED_SENTENCES.join('');
/** The deltas of a STREAMED answer: each sentence of the passage, cited with itself as the quote. */
export const STREAMED_PIECES = STREAMED_SENTENCES.map((sentence, i) => sentence.replace(/。$/, `[${i + 1}]。`));
export const STREAMED_ANSWER = STREAMED_PIECES.join('');

/** The STREAMED answer, written a sentence at a time with a pause before each; other questions get the offline writer's. */
async function writeAnswer(request: AnswerRequest): Promise<AnswerDraft> {
  if (!request.question.includes(STREAMED)) return offlineWriteAnswer(request);
  for (const text of STREAMED_PIECES) {
    await new Promise((resolve) => setTimeout(resolve, STREAMED_DELTA_MS));
    request.onText?.({ kind: 'delta', text });
  }
  return { answer: STREAMED_ANSWER, citations: STREAMED_SENTENCES.map((quote, i) => ({ marker: i + 1, doc_index: 1, quote })) };
}

/** Deterministic models: grades follow markers in the question, so tests share one worker without scripting queues. */
export const httpModels: ChatModels = {
  describe: 'http-test-models',
  async planComplexity() {
    return plannerResult('simple', 'http test', []);
  },
  async gradeEvidence(question) {
    if (question.includes(SLOW)) await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    // A person's answer is prepended with a full-width colon (spec §4.11.1): then the evidence suffices.
    if (question.includes(CLARIFY) && !question.includes('：')) {
      return grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });
    }
    return grade('strong', 'sufficient', 'none', 'answer', 0.95);
  },
  async planRewrite() {
    throw new Error('the HTTP tests never rewrite');
  },
  answerModel: 'http-test-answerer',
  writeAnswer,
};

export const httpRetriever: Retriever = {
  async retrieve(query) {
    return { docs: [chunk(query.includes(STREAMED) ? STREAMED_PASSAGE : '丹瑾是湮灭属性角色。')], meta: metaM0(1) };
  },
};

/** GET /api/kbs (the console's sign-in check) answers no knowledge bases: the console tests' retrieval is the harness' own. */
export const EMPTY_KNOWLEDGE_API: KnowledgeApi = {
  list: async () => [],
  stats: () => Promise.reject(new Error('unused')),
  open: () => Promise.reject(new Error('unused')),
  documents: { list: () => Promise.reject(new Error('unused')) },
  removeDocument: () => Promise.reject(new Error('unused')),
};

export type HttpHarness = {
  env: WorkflowEnv;
  /** The store the worker records into and the servers read (SQLite, in the same file as the owners). */
  audit: SqlAuditStore;
  /** Where the stores are: the SQLite file, or the PostgreSQL database when one was given. */
  location: { sqliteFile: string; databaseUrl: string | undefined };
  rag: RagClient;
  taskQueue: string;
  owners: SqlSessionOwnerStore;
  /** The conversations' turns: the worker records them, the servers read them (issue 25 §1). */
  turns: SqlSessionTurnStore;
  /** The side channel of streaming answers (issue 25 §2): the worker's writer publishes, the servers read. */
  answerStream: SqlAnswerStreamStore;
  tenants: TenantDirectory;
  /** Builds a server on this harness' client, audit store, owners, turns, answer stream and tenants (closed by `close`). */
  server(options?: Partial<HttpServerOptions>): FastifyInstance;
  close(): Promise<void>;
};

/**
 * Connects, opens the stores and starts a worker that records audit rows. A test may give its own models or
 * retrieval (e.g. a complex question whose sub-questions finish at set times); the default ones otherwise.
 */
export async function openHttpHarness(adapters: { models?: ChatModels; retriever?: Retriever; /** PostgreSQL instead of the temp dir's SQLite file. */ databaseUrl?: string } = {}): Promise<HttpHarness> {
  const env = await openWorkflowEnv();
  const taskQueue = newTaskQueue();
  const dir = mkdtempSync(path.join(tmpdir(), 'ragtime-http-'));
  const location = { sqliteFile: path.join(dir, 'audit.sqlite'), databaseUrl: adapters.databaseUrl };
  const audit = createAuditStore({ ...location, includeContent: false });
  const owners = createSessionOwnerStore(location);
  const turns = createSessionTurnStore(location);
  const answerStream = createAnswerStreamStore(location);
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    // As workers/run-worker.ts: every heartbeat reaches the server, so a cancellation does at the next one.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
    activities: createActivities({ models: adapters.models ?? httpModels, retriever: adapters.retriever ?? httpRetriever, audit, turns, answerStream }),
  });
  const running = worker.run();
  const tenants = createTenantDirectory({
    tokens: Object.entries(TOKENS).map(([tenant, token]) => ({ tenant, sha256: hashToken(token), kbs: TENANT_KBS[tenant as Tenant] })),
    operatorTokens: [hashToken(OPERATOR_TOKEN)],
    owners,
    purged: owners,
    defaultKb: KBS.default,
  });
  const rag = RagClient.fromClient(env.client, taskQueue);
  const apps: FastifyInstance[] = [];
  return {
    env,
    audit,
    location,
    rag,
    taskQueue,
    owners,
    turns,
    answerStream,
    tenants,
    server(options) {
      const app = createHttpServer({ rag, auditStore: audit, tenants, sessionTurns: turns, answerStream, limits: { bodyLimitBytes: 64 * 1024, progressPollMs: 100, heartbeatMs: 300 }, ...options });
      apps.push(app);
      return app;
    },
    async close() {
      await Promise.all(apps.map((app) => app.close()));
      worker.shutdown();
      await running;
      await owners.close();
      await turns.close();
      await answerStream.close();
      await audit.close();
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
