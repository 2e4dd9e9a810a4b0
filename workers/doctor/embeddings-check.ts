import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import type { RagConfig } from '../../core/config';
import { isRagError } from '../../core/errors';
import type { CheckSpec } from './check-runner';
import { isUnreachable, oneLine, reasonOf, safeUrl, startHint } from './failure-text';

/**
 * The embeddings endpoint: embed one short query with the embedder the worker uses (its dimension check included:
 * a vector of another length than EMBEDDING_DIM is INVALID_CONFIG with the fix), and no resends.
 */
export function embeddingsCheck(settings: RagConfig['embeddings'], timeoutMs: number): CheckSpec {
  const url = safeUrl(settings.baseUrl);
  return {
    kind: 'embeddings',
    target: url,
    timeoutMs,
    async run(signal) {
      const embedder = createOpenAiEmbedder({ baseUrl: settings.baseUrl, model: settings.model, dim: settings.dim, maxRetries: 0 });
      const [vector] = await embedder.embedQueries(['ragtime doctor'], { signal });
      return { detail: `${settings.model}: one ${vector?.length ?? 0}-d vector (EMBEDDING_DIM ${settings.dim})` };
    },
    failure(error) {
      if (isUnreachable(error)) return `the embeddings server at ${url} is unreachable (${reasonOf(error)}): ${startHint('the embeddings server', settings.baseUrl, 'EMBEDDING_BASE_URL')}`;
      // The embedder's own messages name the model and the fix (e.g. "set EMBEDDING_DIM=1024 (and re-ingest)").
      if (isRagError(error) && error.code === 'INVALID_CONFIG') return error.message.split(settings.baseUrl).join(url);
      return `embedding model "${settings.model}" at ${url} failed (${oneLine(reasonOf(error))}): check EMBEDDING_MODEL and EMBEDDING_BASE_URL`;
    },
  };
}
