import type { McpGrade, McpSearch } from './search-tool';

/** What `ragtime serve` may give its /mcp endpoint beyond the API's own deps. */
export type McpHttpOptions = {
  /** search_knowledge's retrieval (the serve host's in-process retriever); without it the tool is not offered. */
  search?: McpSearch;
  /** The configured grader, for search_knowledge's relevance_level; without it the reranker's scores decide. */
  grade?: McpGrade;
  /** An MCP session unused this long is closed (default 30 minutes). */
  idleSessionMs?: number;
  /** At most this many open MCP sessions; a new one beyond it is refused (503) (default 1,000). */
  maxSessions?: number;
};
