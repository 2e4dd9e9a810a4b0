import { milvusCall, newMilvusClient } from '../../activities/adapters/milvus/calls';
import type { RagConfig } from '../../core/config';
import type { CheckSpec } from './check-runner';
import { isUnreachable, oneLine, reasonOf, safeUrl, startHint } from './failure-text';

// gRPC status UNAUTHENTICATED / PERMISSION_DENIED: a token that Milvus (Zilliz Cloud) does not accept.
const GRPC_AUTH = new Set([16, 7]);

const grpcCodeOf = (error: unknown): unknown => (error as { cause?: { code?: unknown } }).cause?.code ?? (error as { code?: unknown }).code;

/**
 * Milvus: list the collections, and say whether the default knowledge base (RAGTIME_KB, else MILVUS_COLLECTION)
 * exists and how many rows Milvus' statistics count in it (cheap: no load, no query).
 */
export function milvusCheck(settings: RagConfig['milvus'], timeoutMs: number): CheckSpec {
  const address = safeUrl(settings.address);
  const kb = settings.collection;
  return {
    kind: 'milvus',
    target: address,
    timeoutMs,
    async run() {
      const client = newMilvusClient({ address: settings.address, token: settings.token, tls: settings.tls, timeoutSeconds: timeoutMs / 1000 });
      const where = `Milvus at ${address}`;
      try {
        const reply = await milvusCall(where, 'showCollections', () => client.showCollections());
        const names = (reply.data ?? []).map((collection) => collection.name);
        const collections = `${names.length} collection${names.length === 1 ? '' : 's'}`;
        if (!names.includes(kb)) {
          return { detail: `${collections}; the default knowledge base ${kb} does not exist yet (a worker creates it at start, or \`npx ragtime kb create ${kb}\`)` };
        }
        const stats = await milvusCall(where, 'getCollectionStatistics', () => client.getCollectionStatistics({ collection_name: kb }));
        const rows = Number(stats.data?.row_count ?? stats.stats?.find((stat) => stat.key === 'row_count')?.value);
        return { detail: `${collections}; default knowledge base ${kb}${Number.isFinite(rows) ? `: ${rows} rows` : ''}` };
      } finally {
        await client.closeConnection().catch(() => undefined);
      }
    },
    failure(error) {
      if (isUnreachable(error)) return `Milvus at ${address} is unreachable (${reasonOf(error)}): ${startHint('Milvus', settings.address, 'MILVUS_ADDRESS')}`;
      if (GRPC_AUTH.has(grpcCodeOf(error) as number)) return `Milvus at ${address} refused the credentials (${oneLine(reasonOf(error))}): check MILVUS_TOKEN`;
      return `Milvus at ${address} failed (${oneLine(reasonOf(error))}): check MILVUS_ADDRESS and its TLS settings (docs/DEPLOYMENT.md)`;
    },
  };
}
