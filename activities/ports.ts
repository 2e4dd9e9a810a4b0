import type { RetrievalResult } from '../core/trace/writers';

/*
 * The adapters activities talk through. Production wires real ones (OpenAI-compatible models, Milvus retrieval);
 * tests wire scripted ones, so the activity code path is the same in both.
 */

/** Raw structured outputs of the three RAG models (spec §7), before validation. */
export interface ChatModels {
  readonly describe: string;
  planComplexity(question: string): Promise<unknown>;
  gradeEvidence(question: string, context: string): Promise<unknown>;
  planRewrite(question: string): Promise<unknown>;
}

/** spec §6.1 `retrieve_documents`: never throws for infrastructure errors; they are reported in the meta. */
export interface Retriever {
  retrieve(query: string): Promise<RetrievalResult>;
}
