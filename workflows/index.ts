// The workflow bundle's entry point: every workflow type a ragtime worker runs.
export { ragWorkflow } from './rag-workflow';
export { subQuestionWorkflow } from './sub-question-workflow';
export { ingestWorkflow } from './ingest-workflow';
export { housekeepingWorkflow } from './housekeeping-workflow';
export { syncPassWorkflow } from './sync-pass-workflow';
