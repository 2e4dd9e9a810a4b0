import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { Context } from '@temporalio/activity';
import type { DataConverter } from '@temporalio/common';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createOfflineChatModels, offlineWriteAnswer } from '../../activities/adapters/offline-chat-models';
import type { SessionTurnStore } from '../../activities/adapters/sql-session-turns';
import type { AnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import type { AnswerConversation, SessionTurn } from '../../core/schemas/conversation';
import type { EarlierTurn } from '../../core/intent/rules-reply';
import type { Intent } from '../../core/schemas/intent';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import type { AuditStore, ChatModels, Retriever } from '../../activities/ports';
import type { EvidenceGrade, RewritePlan, ComplexityResult } from '../../core/schemas/model-outputs';
import type { RetrievalResult } from '../../core/trace/writers';
import { ragtimeDataConverter } from '../../client/codec/data-converter';
import { RagClient } from '../../client/rag-client';
import type { CodecKeyring } from '../../core/codec-keys';
import { TEST_KEYRING } from '../support/codec-keys';
import { assertReachable, services } from '../support/services';
import { cachedWorkflowBundle } from '../../workers/workflow-bundle';

/*
 * Workflow tests run the real ragWorkflow on the dev server that `make test` started, with the real activity code
 * wired to scripted adapters (models and retrieval), so only the paid/remote parts are stand-ins. Payloads are
 * encrypted as in production (client/codec, with the test keyring), so every workflow test also runs the codec.
 */

export type WorkflowEnv = {
  client: Client;
  nativeConnection: NativeConnection;
  workflowBundle: WorkflowBundle;
  /** The data converter of the client; give it to every worker of the test (Worker.create({ dataConverter })). */
  dataConverter: DataConverter;
  close(): Promise<void>;
};

export type WorkflowEnvOptions = {
  /** The keyring of the client and the workers; default the test keyring, null for plain payloads. */
  codec?: CodecKeyring | null;
  /** Another dev server (default: the one `make test` started). */
  address?: string;
  /** Workflow interceptor modules to bundle (e.g. OpenTelemetry's). */
  workflowInterceptorModules?: string[];
};

/** Connects and bundles the workflows once per test file. */
export async function openWorkflowEnv(options: WorkflowEnvOptions = {}): Promise<WorkflowEnv> {
  const address = options.address ?? services.temporalAddress;
  await assertReachable('Temporal (dev server)', address);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await connectTemporal({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const dataConverter = ragtimeDataConverter(options.codec === undefined ? TEST_KEYRING : options.codec);
  // As a worker does: the workflow sandbox converts failures with the same converter. Bundled once per version of
  // the workflow code for every test file and worker (workers/workflow-bundle.ts).
  const workflowBundle = await cachedWorkflowBundle({
    workflowInterceptorModules: options.workflowInterceptorModules,
    failureConverterPath: dataConverter.failureConverterPath,
  });
  return {
    client: new Client({ connection, dataConverter }),
    nativeConnection,
    workflowBundle,
    dataConverter,
    async close() {
      await nativeConnection.close();
      await connection.close();
    },
  };
}

/** What the scripted adapters answer. Grades are queued per question, since sub-questions run in parallel. */
export type AdapterScript = {
  retrieve: (query: string) => RetrievalResult;
  grades?: Record<string, Array<EvidenceGrade | unknown>>;
  rewritePlans?: Array<RewritePlan | unknown>;
  planner?: ComplexityResult | unknown;
  /** The planner's replies in order, before `planner` answers every later call (e.g. a schema violation, then a plan). */
  plannerReplies?: unknown[];
  /** Delay before each retrieval returns (a slower knowledge base than the models). */
  retrieveDelayMs?: number;
  /**
   * The answer writer's replies, in order (a value, or an Error to throw). Unscripted (or spent), the writer is the
   * offline policy's extractive answerer, whose answers always verify.
   */
  answers?: Array<unknown>;
  /** Delay before each model reply, to keep an activity running while a test stops the worker. */
  modelDelayMs?: number;
  /**
   * When true, the model delay is an activity sleep that ends early with a CancelledFailure when the activity is
   * cancelled — as it is by a worker shutdown — so the attempt fails and the server retries it elsewhere. When
   * false (the default) the delay ignores cancellation, so a shutting-down worker waits for the reply (drains).
   */
  modelDelayHonoursCancellation?: boolean;
  /** FAST_MODEL's condensation of a follow-up (a reply, or an Error to throw); unscripted: the offline rules. */
  condense?: (question: string, turns: SessionTurn[]) => unknown;
  /** The model's reply to a question the intent rules found needs no retrieval (issue 44 §5); unscripted: the rules reply. */
  intentReply?: (question: string, intent: Intent, turns: EarlierTurn[]) => unknown;
};

export type AdapterCalls = { planner: string[]; retrieval: string[]; grader: string[]; rewriter: string[] };

/** The answer writer's calls: the question, and whether it was the repair attempt. */
export type AnswerCall = { question: string; repair: boolean; docCount: number; conversation?: AnswerConversation };

export function scriptedAdapters(script: AdapterScript): { models: ChatModels; retriever: Retriever; calls: AdapterCalls; answerCalls: AnswerCall[] } {
  const calls: AdapterCalls = { planner: [], retrieval: [], grader: [], rewriter: [] };
  const offline = createOfflineChatModels();
  const answerCalls: AnswerCall[] = [];
  const answers = [...(script.answers ?? [])];
  const grades = Object.fromEntries(Object.entries(script.grades ?? {}).map(([question, queue]) => [question, [...queue]]));
  const rewritePlans = [...(script.rewritePlans ?? [])];
  const plannerReplies = [...(script.plannerReplies ?? [])];
  const pause = () =>
    script.modelDelayHonoursCancellation
      ? Context.current().sleep(script.modelDelayMs ?? 0)
      : new Promise((resolve) => setTimeout(resolve, script.modelDelayMs ?? 0));
  const models: ChatModels = {
    describe: 'scripted-model',
    async planComplexity(question) {
      calls.planner.push(question);
      await pause();
      if (plannerReplies.length > 0) return plannerReplies.shift();
      if (script.planner === undefined) throw new Error('planner called but not scripted');
      return script.planner;
    },
    async gradeEvidence(question) {
      calls.grader.push(question);
      await pause();
      const next = grades[question]?.shift();
      if (next === undefined) throw new Error(`grader called for ${JSON.stringify(question)} more often than scripted`);
      return next;
    },
    async planRewrite(question) {
      calls.rewriter.push(question);
      await pause();
      const next = rewritePlans.shift();
      if (next === undefined) throw new Error('rewriter called more often than scripted');
      return next;
    },
    answerModel: 'scripted-answerer',
    async writeAnswer(request) {
      answerCalls.push({
        question: request.question,
        repair: request.repair !== undefined,
        docCount: request.evidence.length,
        ...(request.conversation ? { conversation: request.conversation } : {}),
      });
      await pause();
      // Unscripted: the offline answerer, which streams its own text.
      if (answers.length === 0) return offlineWriteAnswer(request);
      const next = answers.shift();
      // As a streaming provider does (issue 25 §2): the answer's text in three pieces, then the reply; a scripted
      // failure first streams a partial text that the next attempt must make listeners discard.
      const stream = (text: string) => [0, 1, 2].forEach((i) => request.onText?.({ kind: 'delta', text: text.slice(Math.floor((i * text.length) / 3), Math.floor(((i + 1) * text.length) / 3)) }));
      if (next instanceof Error) {
        stream('半截的回答');
        throw next;
      }
      const text = (next as { answer?: unknown } | undefined)?.answer;
      if (typeof text === 'string') stream(text);
      return next;
    },
    ...(script.intentReply ? { replyWithoutRetrieval: async (question: string, intent: Intent, turns: EarlierTurn[]) => script.intentReply?.(question, intent, turns) } : {}),
    async condenseQuestion(question, turns) {
      if (!script.condense) return offline.condenseQuestion?.(question, turns);
      const reply = script.condense(question, turns);
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  const retriever: Retriever = {
    async retrieve(query) {
      calls.retrieval.push(query);
      if (script.retrieveDelayMs) await new Promise((resolve) => setTimeout(resolve, script.retrieveDelayMs));
      return script.retrieve(query);
    },
  };
  return { models, retriever, calls, answerCalls };
}

let sharedAuditStore: AuditStore | undefined;
/**
 * The audit store of workers that are not given one: a private in-memory SQLite database, so every workflow test
 * also runs recordAudit against the real store code (and `scripts/export-replay-histories.ts` records it).
 */
export function defaultAuditStore(): AuditStore {
  sharedAuditStore ??= createAuditStore({ sqliteFile: ':memory:', includeContent: false });
  return sharedAuditStore;
}

/** Runs `fn` while a worker with the scripted adapters serves a fresh task queue. */
export async function withWorker<T>(
  env: WorkflowEnv,
  script: AdapterScript,
  fn: (rag: RagClient, calls: AdapterCalls, taskQueue: string, answerCalls: AnswerCall[]) => Promise<T>,
  options: { audit?: AuditStore; turns?: SessionTurnStore; sessionTurns?: number; answerStream?: AnswerStreamStore } = {},
): Promise<T> {
  const taskQueue = `test-${randomUUID()}`;
  const { models, retriever, calls, answerCalls } = scriptedAdapters(script);
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever, audit: options.audit ?? defaultAuditStore(), turns: options.turns, sessionTurns: options.sessionTurns, answerStream: options.answerStream }),
  });
  return worker.runUntil(fn(RagClient.fromClient(env.client, taskQueue), calls, taskQueue, answerCalls));
}

/** A task queue no other test uses. */
export const newTaskQueue = (): string => `test-${randomUUID()}`;

/**
 * A worker you start and stop yourself (`worker.run()`, `worker.shutdown()`), for tests that stop a worker mid-run
 * and start another on the same task queue. Pass the same adapters to both, so their call records add up.
 */
export async function createWorker(
  env: WorkflowEnv,
  adapters: { models: ChatModels; retriever: Retriever; audit?: AuditStore },
  taskQueue: string,
  options: Partial<Omit<WorkerOptions, 'connection' | 'taskQueue' | 'workflowBundle' | 'activities'>> = {},
): Promise<Worker> {
  return Worker.create({
    dataConverter: env.dataConverter,
    ...options,
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    activities: createActivities({ models: adapters.models, retriever: adapters.retriever, audit: adapters.audit ?? defaultAuditStore() }),
  });
}

export const sessionId = (): string => `s-${randomUUID().slice(0, 8)}`;
