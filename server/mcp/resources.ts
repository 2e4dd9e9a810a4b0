import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RagClient } from '../../client/rag-client';
import { listSyncSources, syncSourceStatus } from '../../client/sync-status';
import type { KbStats } from '../../core/knowledge/knowledge-base';
import type { McpScope } from './mcp-scope';
import { guarded } from './tool-result';

/**
 * ragtime://runs/{id}/trace (the normalized trace), with `kbStats` ragtime://kb/{name} (a knowledge base's stats), and
 * for the local user (stdio, no tenant) ragtime://sync/sources: the synced sources with their last pass (issue 46), which
 * name paths of the workers' machines, so never a tenant's.
 */
export function registerResources(server: McpServer, deps: { rag: RagClient; scope: McpScope; kbStats?: (kb: string) => Promise<KbStats> }): void {
  const { rag, scope, kbStats } = deps;
  server.registerResource(
    'run-trace',
    new ResourceTemplate('ragtime://runs/{id}/trace', { list: undefined }),
    { title: 'Run trace', description: 'The normalized trace of a run (spec §5.6), as JSON.', mimeType: 'application/json' },
    async (uri, variables) =>
      guarded(async () => {
        const id = decodeURIComponent(String(variables.id));
        await scope.assertRun(id);
        const trace = await scope.view(await rag.getTrace(id)); // issue 44 §4
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(trace, null, 2) }] };
      }),
  );
  if (scope.tenant === undefined) {
    server.registerResource(
      'sync-sources',
      'ragtime://sync/sources',
      { title: 'Synced sources', description: 'The synced sources (ragtime sync): settings, schedule, running pass and last pass report, as JSON.', mimeType: 'application/json' },
      async (uri) =>
        guarded(async () => {
          const sources = await Promise.all((await listSyncSources(rag.temporal)).map((source) => syncSourceStatus(rag.temporal, source)));
          return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ sources }, null, 2) }] };
        }),
    );
  }
  if (!kbStats) return;
  server.registerResource(
    'kb-stats',
    new ResourceTemplate('ragtime://kb/{name}', { list: undefined }),
    { title: 'Knowledge base stats', description: 'Documents, chunks per level, bytes and the last ingestion of a knowledge base, as JSON.', mimeType: 'application/json' },
    async (uri, variables) =>
      guarded(async () => {
        // The scope decides which names the caller may read (a tenant's own; locally any valid name).
        const kb = scope.kbOf(decodeURIComponent(String(variables.name))) ?? decodeURIComponent(String(variables.name));
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await kbStats(kb), null, 2) }] };
      }),
  );
}
