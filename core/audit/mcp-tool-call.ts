import { MCP_TOOL_SCHEMA, type McpToolCallRecord, type McpToolDetails, type McpToolName } from '../schemas/audit';
import { AUDIT_MAX_KEYS, EVIDENCE_PREVIEW_CHARS } from './tool-invocation';
import { cutText, isoTime, oneLine } from './bounded-text';

/*
 * The audit row of one agent tool call (issue 15 §1; seed 004 §4.2: a tool other than the lookup gets a thin row —
 * its name, status metadata, counts, scores). The MCP server gathers the facts; this builds the bounded row.
 */

const OUTPUT_PREVIEW_CHARS = 300;
const ERROR_CODE_CHARS = 100;

/** What the MCP server knows once a tool call has ended. */
export type McpCallFacts = {
  tool: McpToolName;
  /** Unique per call (the server draws it): the row's step is "mcp:<tool>:<callId>". */
  callId: string;
  transport: McpToolDetails['transport'];
  sessionId: string;
  /** The run the call started, continued or read; null for a search or a call refused before any run. */
  run: { workflowId: string; runId: string; status: string; route: string | null; retrievalStatus: string | null } | null;
  kb: string | null;
  /** search_knowledge's relevance level. */
  relevanceLevel: string | null;
  /** The evidence returned to the agent (after the projection's bound). */
  evidence: Array<{ source: string | null; score: number | null; text: string }>;
  /** How many evidence items there were before the bound. */
  evidenceTotal: number;
  elicited: number;
  cancelled: boolean;
  /** The closed error code of a failed call, else null. */
  errorCode: string | null;
  /** The question or query (kept only as content). */
  query: string | null;
  startedAt: number;
  endedAt: number;
};

function preview(details: McpToolDetails, facts: McpCallFacts): string {
  const parts = [
    `tool=${facts.tool}`,
    `status=${facts.cancelled ? 'cancelled' : facts.errorCode !== null ? 'error' : (details.run_status ?? 'ok')}`,
    `route=${details.route ?? '-'}`,
    `evidence=${facts.evidence.length}/${facts.evidenceTotal}`,
    ...(facts.relevanceLevel === null ? [] : [`relevance=${facts.relevanceLevel}`]),
    ...(facts.elicited > 0 ? [`elicited=${facts.elicited}`] : []),
    ...(details.error_code === null ? [] : [`error=${details.error_code}`]),
  ];
  return cutText(parts.join(' '), OUTPUT_PREVIEW_CHARS);
}

/** The row; `content` is always filled with what is known, and the store drops it unless opened with includeContent. */
export function buildMcpToolCall(facts: McpCallFacts): McpToolCallRecord {
  const scores = facts.evidence.map((item) => item.score).filter((score): score is number => score !== null && Number.isFinite(score));
  const errorCode = facts.cancelled ? 'CANCELLED' : facts.errorCode === null ? null : cutText(facts.errorCode, ERROR_CODE_CHARS);
  const details: McpToolDetails = {
    audit_schema: MCP_TOOL_SCHEMA,
    transport: facts.transport,
    run_status: facts.run?.status ?? null,
    route: facts.run?.route ?? null,
    retrieval_status: facts.run?.retrievalStatus ?? null,
    kb: facts.kb,
    sources: [...new Set(facts.evidence.map((item) => item.source ?? '').filter((source) => source !== ''))].slice(0, AUDIT_MAX_KEYS),
    top_score: scores.length > 0 ? Math.max(...scores) : null,
    elicited_answers: facts.elicited,
    cancelled: facts.cancelled,
    error_code: errorCode,
  };
  return {
    session_id: facts.sessionId,
    workflow_id: facts.run?.workflowId ?? '',
    run_id: facts.run?.runId ?? '',
    step: `mcp:${facts.tool}:${facts.callId}`,
    tool_name: facts.tool,
    relevance_level: facts.relevanceLevel,
    evidence_count: facts.evidence.length,
    candidate_count: Math.max(facts.evidenceTotal, facts.evidence.length),
    is_truncated: facts.evidenceTotal > facts.evidence.length,
    details,
    output_preview: preview(details, facts),
    duration_ms: Math.max(0, Math.round(facts.endedAt - facts.startedAt)),
    success: errorCode === null,
    created_at: isoTime(facts.endedAt),
    content:
      facts.query === null
        ? null
        : { query: facts.query, evidence_previews: facts.evidence.slice(0, AUDIT_MAX_KEYS).map((item) => oneLine(item.text, EVIDENCE_PREVIEW_CHARS)) },
  };
}
