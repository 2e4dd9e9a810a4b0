import { z } from 'zod';
import { pythonStrip } from '../python-text';

// spec §6.6.1: values that `.env.example` ships as placeholders read as "unset".
const PLACEHOLDER_PREFIXES = ['your_', 'your-', 'replace-with'];
const PLACEHOLDER_FRAGMENTS = ['your-rerank', 'your_rerank'];
// spec §6.6.1: the Jina/Cohere-style path appended to RERANK_BINDING_HOST.
const RERANK_PATH = '/v1/rerank';

/** Rerank settings as retrieval uses them and as the trace reports them (spec §6.6.1, §6.9). */
export const RerankSettings = z.object({
  /** True iff model, host and API key all survive the placeholder filter. */
  enabled: z.boolean(),
  /** Trace field `rerank_model`: null when unset (then absent from the normalized trace). */
  model: z.string().nullable(),
  /** Trace field `rerank_endpoint`: "" when the host is unset, and kept in the trace even then. */
  endpoint: z.string(),
  apiKey: z.string().nullable(),
  timeoutSeconds: z.number().min(0.1),
  /** Applied to the effective score even when rerank is disabled (spec §6.4 step 4). */
  minScore: z.number(),
});
export type RerankSettings = z.infer<typeof RerankSettings>;

/** The three rerank variables as read from the environment, plus the already parsed numbers. */
export type RerankEnvSettings = {
  model?: string | undefined;
  host?: string | undefined;
  apiKey?: string | undefined;
  timeoutSeconds: number;
  minScore: number;
};

/**
 * The placeholder filter of spec §6.6.1: trim; empty → null; a value whose lower case starts with `your_`, `your-`
 * or `replace-with`, or contains `your-rerank` / `your_rerank`, → null. Otherwise the trimmed value.
 */
export function cleanRerankSetting(raw: string | null | undefined): string | null {
  const value = pythonStrip(raw ?? '');
  if (value === '') return null;
  const lowered = value.toLowerCase();
  const isPlaceholder =
    PLACEHOLDER_PREFIXES.some((prefix) => lowered.startsWith(prefix)) ||
    PLACEHOLDER_FRAGMENTS.some((fragment) => lowered.includes(fragment));
  return isPlaceholder ? null : value;
}

/**
 * The rerank URL of spec §6.6.1 (scenario U04): trailing slashes removed, `/v1/rerank` appended unless already
 * there. A host ending in `/v1` therefore yields `…/v1/v1/rerank`, as in the original. No host → "".
 */
export function rerankEndpoint(host: string | null | undefined): string {
  if (!host) return '';
  const base = pythonStrip(host).replace(/\/+$/, '');
  return base.endsWith(RERANK_PATH) ? base : `${base}${RERANK_PATH}`;
}

/** Filters the three rerank variables and derives `enabled` and the endpoint (spec §6.6.1). */
export function resolveRerankSettings(env: RerankEnvSettings): RerankSettings {
  const model = cleanRerankSetting(env.model);
  const host = cleanRerankSetting(env.host);
  const apiKey = cleanRerankSetting(env.apiKey);
  return {
    enabled: model !== null && host !== null && apiKey !== null,
    model,
    // Derived from the filtered host alone: a real host with a missing model still shows its endpoint.
    endpoint: rerankEndpoint(host),
    apiKey,
    timeoutSeconds: env.timeoutSeconds,
    minScore: env.minScore,
  };
}
