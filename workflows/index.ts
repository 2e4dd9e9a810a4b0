/* eslint-disable @typescript-eslint/no-require-imports -- each workflow's modules are required when it runs (below) */
import type * as Housekeeping from './housekeeping-workflow';
import type * as Ingest from './ingest-workflow';
import type * as Rag from './rag-workflow';
import type * as SubQuestion from './sub-question-workflow';
import type * as SyncPass from './sync-pass-workflow';

/*
 * The workflow bundle's entry point: every workflow type a ragtime worker runs.
 *
 * Each one requires its module when it is called, not when this file is evaluated (issue 47 §1). The worker evaluates
 * the modules the entry point reaches anew for every workflow (the reusable V8 context swaps the module cache), and
 * core/'s zod schemas are built as their modules load: with every type exported eagerly, a sub-question paid for the
 * ingest, sync and housekeeping modules too (importing the workflows: 38 ms → ragWorkflow's own 20 ms, a
 * sub-question's 13 ms; docs/PERFORMANCE.md). Named function declarations, so that `client.workflow.start(fn)` still
 * takes the type from `fn.name`. Only this file changes: the commands a workflow issues, and its histories, do not.
 */

export function ragWorkflow(...args: Parameters<typeof Rag.ragWorkflow>): ReturnType<typeof Rag.ragWorkflow> {
  return (require('./rag-workflow') as typeof Rag).ragWorkflow(...args);
}

export function subQuestionWorkflow(...args: Parameters<typeof SubQuestion.subQuestionWorkflow>): ReturnType<typeof SubQuestion.subQuestionWorkflow> {
  return (require('./sub-question-workflow') as typeof SubQuestion).subQuestionWorkflow(...args);
}

export function ingestWorkflow(...args: Parameters<typeof Ingest.ingestWorkflow>): ReturnType<typeof Ingest.ingestWorkflow> {
  return (require('./ingest-workflow') as typeof Ingest).ingestWorkflow(...args);
}

export function housekeepingWorkflow(...args: Parameters<typeof Housekeeping.housekeepingWorkflow>): ReturnType<typeof Housekeeping.housekeepingWorkflow> {
  return (require('./housekeeping-workflow') as typeof Housekeeping).housekeepingWorkflow(...args);
}

export function syncPassWorkflow(...args: Parameters<typeof SyncPass.syncPassWorkflow>): ReturnType<typeof SyncPass.syncPassWorkflow> {
  return (require('./sync-pass-workflow') as typeof SyncPass).syncPassWorkflow(...args);
}
