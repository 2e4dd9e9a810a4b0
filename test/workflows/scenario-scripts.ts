import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { ChatModels, Retriever } from '../../activities/ports';
import { RagClient } from '../../client/rag-client';
import type { EvidenceGrade } from '../../core/schemas/model-outputs';
import type { Calls, Script } from '../support/scenario';
import { scriptedAdapters, type AdapterCalls, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Turns a graph-scenario script of the pure scenario driver (test/support/scenario.ts) into the harness script of
 * the same scenario on Temporal, and the driver's calls into the calls the scripted adapters should see.
 *
 * The driver takes its grades from one ordered queue and runs sub-questions one after the other; the workflow runs
 * sub-questions in parallel, so the harness queues grades per question. The driver's own grader calls say which
 * question took which grade, so the conversion follows the order the oracle used, not a guess.
 *
 * Also: one worker shared by a whole test file, whose adapters switch to the running test's script.
 */

/** The script's grades, queued per question in the order the driver consumed them. Every grade must be used. */
export function gradesPerQuestion(grades: readonly EvidenceGrade[], graderCalls: Calls['grader']): Record<string, EvidenceGrade[]> {
  if (graderCalls.length !== grades.length) {
    throw new Error(`the scenario driver used ${graderCalls.length} of the ${grades.length} scripted grades; fix the script`);
  }
  const queues: Record<string, EvidenceGrade[]> = {};
  graderCalls.forEach(({ question }, i) => {
    (queues[question] ??= []).push(grades[i] as EvidenceGrade);
  });
  return queues;
}

/** The harness script for a driver script, once the driver has run it (its calls are known). */
export function adapterScriptFor(script: Script, driverCalls: Calls): AdapterScript {
  return {
    retrieve: script.retrieve,
    grades: gradesPerQuestion(script.grades ?? [], driverCalls.grader),
    rewritePlans: [...(script.rewritePlans ?? [])],
    ...(script.planner ? { planner: script.planner } : {}),
  };
}

/**
 * The adapter calls the workflow should make, from the driver's calls. The grader adapter records only the question.
 * Sub-questions run in parallel on Temporal, so with `ordered: false` both sides are compared sorted.
 */
export function expectedAdapterCalls(driverCalls: Calls, { ordered }: { ordered: boolean }): AdapterCalls {
  const order = (items: string[]): string[] => (ordered ? [...items] : [...items].sort());
  return {
    planner: [...driverCalls.planner],
    retrieval: order(driverCalls.retrieval),
    grader: order(driverCalls.grader.map((call) => call.question)),
    rewriter: [...driverCalls.rewriter],
  };
}

export function sortedAdapterCalls(calls: AdapterCalls, { ordered }: { ordered: boolean }): AdapterCalls {
  const order = (items: string[]): string[] => (ordered ? [...items] : [...items].sort());
  return { planner: [...calls.planner], retrieval: order(calls.retrieval), grader: order(calls.grader), rewriter: [...calls.rewriter] };
}

export type SharedWorker = {
  /** Makes `script` the adapters' script from now on; returns a client for the worker and the calls the script sees. */
  use(script: AdapterScript): { rag: RagClient; calls: AdapterCalls };
  stop(): Promise<void>;
};

/**
 * One worker for a whole test file, whose scripted adapters answer with the script of the test that runs now.
 * Creating a worker costs ~0.3 s, a third of a scenario. This is safe because jest runs a file's tests one after
 * the other and every scenario's runs settle (complete, fail, or wait for a person and are terminated) before its
 * test ends, so no activity of one scenario runs under another's script.
 */
export async function startSharedWorker(env: WorkflowEnv): Promise<SharedWorker> {
  const taskQueue = `test-${randomUUID()}`;
  let current: ReturnType<typeof scriptedAdapters> | null = null;
  const active = () => {
    if (!current) throw new Error('scripted adapter called while no scenario is active');
    return current;
  };
  const models: ChatModels = {
    describe: 'scripted-model',
    planComplexity: (question) => active().models.planComplexity(question),
    gradeEvidence: (question, context, evidence) => active().models.gradeEvidence(question, context, evidence),
    planRewrite: (question) => active().models.planRewrite(question),
    answerModel: 'scripted-answerer',
    writeAnswer: (request) => active().models.writeAnswer(request),
  };
  const retriever: Retriever = { retrieve: (query) => active().retriever.retrieve(query) };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever }),
  });
  let failure: unknown = null;
  const running = worker.run().catch((error: unknown) => {
    failure = error;
  });
  return {
    use(script) {
      if (failure) throw new Error(`the shared test worker stopped: ${String(failure)}`);
      current = scriptedAdapters(script);
      return { rag: RagClient.fromClient(env.client, taskQueue), calls: current.calls };
    },
    async stop() {
      current = null;
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
