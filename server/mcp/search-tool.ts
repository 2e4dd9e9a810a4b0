import { type FilterClause, MetadataFilters } from '../../core/retrieval/metadata-filter';
import { accessClause } from '../../core/knowledge/document-access';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { EvidenceGrade } from '../../core/schemas/model-outputs';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../../core/trace/writers';
import type { CallAuditor } from './audit-tool-call';
import type { McpScope } from './mcp-scope';
import { projectRetrieval } from './project-outcome';
import { guarded, result } from './tool-result';
import { MCP_MAX_EVIDENCE, SearchKnowledgeInput, SearchResult } from './tool-schemas';

/** One in-process retrieval (`ragtime search`), in the knowledge base named (undefined: the default). */
export type McpSearch = (query: string, kb: string | undefined, filters?: MetadataFilters, forced?: readonly FilterClause[]) => Promise<{ kb: string; result: RetrievalResult }>;
/** The configured grader on the evidence a search returns; null when there is none to ask. */
export type McpGrade = (query: string, docs: Chunk[]) => Promise<EvidenceGrade | null>;

const DEFAULT_TOP_K = 5;

/** search_knowledge: seed 004's projection of one retrieval — bounded evidence and a relevance level. */
export function registerSearchTool(
  server: McpServer,
  deps: { search: McpSearch; grade?: McpGrade; scope: McpScope; audited: CallAuditor; onError: (error: unknown) => void },
): void {
  const { search, scope, audited, grade } = deps;
  /** The grade of what the agent gets, if a grader is configured; a failed grade falls back to the scores. */
  const gradeOf = async (query: string, docs: Chunk[]): Promise<EvidenceGrade | null> => {
    if (!grade || docs.length === 0) return null;
    return grade(query, docs).catch((error: unknown) => {
      deps.onError(error);
      return null;
    });
  };
  server.registerTool(
    'search_knowledge',
    {
      title: 'Search the knowledge base',
      description:
        'Retrieve evidence for a query without asking the engine to answer: up to top_k passages (text, source file, ' +
        'page, score) and a relevance_level — "high"/"medium"/"low"/"none" from the engine\'s evidence grader ' +
        '(or, without one, from the reranker), "unranked" when neither judged them, "none" when nothing matched, ' +
        '"unavailable" when the knowledge base could not be read. Use it to ' +
        'gather context you will reason over yourself; use ask_knowledge for an answer with citations.',
      inputSchema: SearchKnowledgeInput,
      outputSchema: SearchResult,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, kb, filters, top_k }) =>
      guarded(() =>
        audited('search_knowledge', async (notes) => {
          notes.text = query;
          // issue 44 §2: the filters, parsed to lists, go into both searches.
          // issue 44 §4: the token's groups are a forced clause, ANDed after the filters (which cannot widen it).
          const forced = scope.access ? [accessClause(scope.access)] : undefined;
          const found = await search(query, scope.kbOf(kb), filters ? MetadataFilters.parse(filters) : undefined, forced);
          const topK = top_k ?? DEFAULT_TOP_K;
          const failed = found.result.meta.retrieval_mode === 'failed';
          const graded = failed ? null : await gradeOf(query, found.result.docs.slice(0, Math.min(topK, MCP_MAX_EVIDENCE)));
          const projected = await scope.view(projectRetrieval(found.result, found.kb, topK, graded));
          notes.search = { result: projected, total: found.result.docs.length };
          return result(projected);
        }),
      ),
  );
}
