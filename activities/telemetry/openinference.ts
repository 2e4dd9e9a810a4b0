import type { Attributes } from '@opentelemetry/api';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { RetrievalMeta } from '../../core/trace/raw-trace';
import type { SpanContentPolicy } from './spans';

/*
 * OpenInference semantic conventions (github.com/Arize-ai/openinference, spec/semantic_conventions.md) for the
 * retriever and reranker spans, written out here rather than imported: the names are strings on the wire.
 * Document content and the query are content: present only with RAGTIME_OTEL_CONTENT=true.
 */
export const OPENINFERENCE_SPAN_KIND = 'openinference.span.kind';

/** The id a document is known by: its chunk id (leaves and merged parents), else the store's primary key. */
const documentId = (doc: Chunk): string => doc.chunk_id ?? String(doc.id ?? '');

function documents(prefix: string, docs: readonly Chunk[], score: (doc: Chunk) => number | undefined, policy: SpanContentPolicy): Attributes {
  const attributes: Attributes = {};
  docs.forEach((doc, index) => {
    const key = `${prefix}.${index}.document`;
    attributes[`${key}.id`] = documentId(doc);
    const value = score(doc);
    if (typeof value === 'number') attributes[`${key}.score`] = value;
    // Where the chunk comes from is metadata, not content (the audit store keeps sources by default too).
    attributes[`${key}.metadata`] = JSON.stringify({ filename: doc.filename, page_number: doc.page_number, chunk_level: doc.chunk_level });
    if (policy.includeContent && typeof doc.text === 'string') attributes[`${key}.content`] = doc.text;
  });
  return attributes;
}

/** The final score of a retrieved document: its rerank score when reranked, else its recall score. */
const finalScore = (doc: Chunk): number | undefined => doc.rerank_score ?? doc.score;

/** Start attributes of the retriever span. */
export function retrieverStart(query: string, policy: SpanContentPolicy): Attributes {
  return { [OPENINFERENCE_SPAN_KIND]: 'RETRIEVER', ...(policy.includeContent ? { 'input.value': query } : {}) };
}

/** End attributes: the documents (id, score, metadata) and ragtime's retrieval meta (counts and modes only). */
export function retrieverResult(docs: readonly Chunk[], meta: RetrievalMeta, policy: SpanContentPolicy): Attributes {
  return {
    ...documents('retrieval.documents', docs, finalScore, policy),
    'ragtime.retrieval.mode': meta.retrieval_mode ?? 'unknown',
    'ragtime.retrieval.top_k': meta.retrieval_top_k ?? -1,
    'ragtime.retrieval.candidate_k': meta.candidate_k ?? -1,
    'ragtime.retrieval.recall_count': meta.recall_count ?? -1,
    'ragtime.retrieval.document_count': docs.length,
    'ragtime.retrieval.rerank_applied': meta.rerank_applied === true,
    ...(meta.rerank_error ? { 'ragtime.retrieval.rerank_error': meta.rerank_error } : {}),
  };
}

/** Start attributes of the reranker span: model, top_k and the input documents with their recall scores. */
export function rerankerStart(model: string, topK: number, query: string, input: readonly Chunk[], policy: SpanContentPolicy): Attributes {
  return {
    [OPENINFERENCE_SPAN_KIND]: 'RERANKER',
    'reranker.model_name': model,
    'reranker.top_k': topK,
    ...(policy.includeContent ? { 'reranker.query': query } : {}),
    ...documents('reranker.input_documents', input, (doc) => doc.score, policy),
  };
}

/** End attributes of the reranker span: the output documents with their rerank scores. */
export function rerankerResult(output: readonly Chunk[], policy: SpanContentPolicy): Attributes {
  return documents('reranker.output_documents', output, (doc) => doc.rerank_score, policy);
}
