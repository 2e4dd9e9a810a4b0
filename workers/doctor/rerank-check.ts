import { createJinaRerankTransport } from '../../activities/adapters/jina-rerank-transport';
import type { RagConfig } from '../../core/config';
import { parseRerankReply, rerankRequestBody } from '../../core/retrieval/rerank-response';
import type { CheckSpec } from './check-runner';
import { isUnreachable, oneLine, reasonOf, safeUrl } from './failure-text';

const PROBE = 'ragtime doctor';

/** The rerank variables that are unset or placeholders (spec §6.6.1), by name. */
function missing(settings: RagConfig['rerank']): string[] {
  return [
    ...(settings.model === null ? ['RERANK_MODEL'] : []),
    ...(settings.endpoint === '' ? ['RERANK_BINDING_HOST'] : []),
    ...(settings.apiKey === null ? ['RERANK_API_KEY'] : []),
  ];
}

/**
 * Rerank, when configured: one request of one document through the transport retrieval uses, read as retrieval
 * reads it (core/retrieval/rerank-response.ts). Unconfigured, an ok line says it is off and which variables are
 * missing, since rerank that is half set up is silently off.
 */
export function rerankCheck(settings: RagConfig['rerank'], timeoutMs: number): CheckSpec {
  const endpoint = settings.endpoint === '' ? '(off)' : safeUrl(settings.endpoint);
  return {
    kind: 'rerank',
    target: endpoint,
    timeoutMs,
    async run() {
      if (!settings.enabled || settings.model === null || settings.apiKey === null) {
        return { detail: `off: ${missing(settings).join(', ')} ${missing(settings).length === 1 ? 'is' : 'are'} not set; retrieval ranks by fusion alone` };
      }
      const transport = createJinaRerankTransport();
      const candidates = [{ text: PROBE }];
      const reply = await transport.post({
        endpoint: settings.endpoint,
        apiKey: settings.apiKey,
        timeoutSeconds: Math.min(settings.timeoutSeconds, timeoutMs / 1000),
        body: rerankRequestBody(settings.model, PROBE, candidates, 1),
      });
      const outcome = parseRerankReply(reply, candidates, 1);
      if (outcome.kind === 'reranked') return { detail: `${settings.model}: ranked one document (score ${outcome.docs[0]?.rerank_score ?? '-'})` };
      const why = outcome.kind === 'failed' ? outcome.error : outcome.reason;
      const fix = reply.status === 401 || reply.status === 403 ? 'check RERANK_API_KEY' : 'check RERANK_MODEL and RERANK_BINDING_HOST';
      return { ok: false, detail: `rerank model "${settings.model}" at ${endpoint} answered ${oneLine(why.split(settings.apiKey).join('***'))}: ${fix}` };
    },
    failure(error) {
      if (isUnreachable(error)) return `the reranker at ${endpoint} is unreachable (${reasonOf(error)}): check RERANK_BINDING_HOST and that the reranker runs`;
      return `the reranker at ${endpoint} failed (${oneLine(reasonOf(error))}): check RERANK_BINDING_HOST`;
    },
  };
}
