import { randomUUID } from 'node:crypto';
import { buildMcpToolCall, type McpCallFacts } from '../../core/audit/mcp-tool-call';
import type { McpToolCallRecord, McpToolName } from '../../core/schemas/audit';
import type { RagOutcome } from '../../core/schemas/run-io';
import { failureCode } from './tool-result';
import type { RunResult, SearchResult } from './tool-schemas';

/** Where the MCP server writes its tool-call rows (the SQL audit store has it). */
export type McpAuditSink = { recordMcpToolCall(record: McpToolCallRecord): Promise<unknown> };

/** What a tool handler notes while it works, for its audit row. */
export type CallNotes = {
  /** The session the call ran in (ask_knowledge), when known before an outcome. */
  sessionId?: string;
  /** The run the call is about, when known before an outcome. */
  workflowId?: string;
  outcome?: RagOutcome;
  projected?: RunResult;
  search?: { result: SearchResult; total: number };
  /** The question, query or answer (kept only as content). */
  text?: string;
  kb?: string;
  cancelled?: boolean;
};

export type CallAuditor = <T>(tool: McpToolName, call: (notes: CallNotes) => Promise<T>) => Promise<T>;

/** The tool calls in flight (with their audit writes), so a server that stops can let them finish first. */
export class CallTracker {
  private readonly pending = new Set<Promise<unknown>>();

  track<T>(call: Promise<T>): Promise<T> {
    const settled = call.then(() => undefined, () => undefined);
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return call;
  }

  /** Resolves once every call tracked so far has settled, or after `boundMs`. */
  async settled(boundMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
    await Promise.race([Promise.all(this.pending), bound]);
    clearTimeout(timer);
  }
}

export type CallAuditOptions = {
  sink: McpAuditSink | undefined;
  tracker?: CallTracker;
  transport: McpCallFacts['transport'];
  /** The session of a call that names no run's session (a search, a refused call); null: the call is not recorded. */
  fallbackSession: () => Promise<string | null>;
  now?: () => number;
  /** A row that could not be written (logged; the call's result is unchanged). */
  onError: (error: unknown) => void;
};

type CallEnd = { sessionId: string; error: unknown; transport: McpCallFacts['transport']; startedAt: number; endedAt: number };

function factsOf(tool: McpToolName, notes: CallNotes, end: CallEnd): McpCallFacts {
  const { outcome, projected, search } = notes;
  const evidence = projected?.evidence ?? search?.result.evidence ?? [];
  const run = outcome
    ? { workflowId: outcome.workflowId, runId: outcome.runId, status: outcome.status, route: outcome.route, retrievalStatus: outcome.retrieval_status }
    : notes.workflowId === undefined
      ? null
      : { workflowId: notes.workflowId, runId: '', status: 'unknown', route: null, retrievalStatus: null };
  return {
    tool,
    callId: randomUUID(),
    transport: end.transport,
    sessionId: end.sessionId,
    run,
    kb: outcome?.kb ?? search?.result.kb ?? notes.kb ?? null,
    relevanceLevel: search?.result.relevance_level ?? null,
    evidence,
    evidenceTotal: projected?.evidence_total ?? search?.total ?? evidence.length,
    elicited: projected?.elicited_answers ?? 0,
    cancelled: notes.cancelled === true,
    errorCode: end.error === undefined ? null : failureCode(end.error),
    query: notes.text ?? null,
    startedAt: end.startedAt,
    endedAt: end.endedAt,
  };
}

/**
 * Runs each tool call and then writes its audit row (issue 15 §1; seed 004's thin row for a tool call): tool name,
 * run ids, status, counts, scores — raw text only as content, which the store drops unless AUDIT_INCLUDE_CONTENT.
 * A failed write never changes the call's result. Without a sink, calls are not recorded.
 */
export function callAuditor(options: CallAuditOptions): CallAuditor {
  const now = options.now ?? Date.now;
  const audited: CallAuditor = async (tool, call) => {
    const startedAt = now();
    const notes: CallNotes = {};
    let error: unknown;
    try {
      return await call(notes);
    } catch (thrown) {
      error = thrown ?? new Error('tool call failed');
      throw thrown;
    } finally {
      const { sink } = options;
      if (sink) {
        try {
          const sessionId = notes.outcome?.sessionId ?? notes.sessionId ?? (await options.fallbackSession());
          if (sessionId !== null) {
            const facts = factsOf(tool, notes, { sessionId, error, transport: options.transport, startedAt, endedAt: now() });
            await sink.recordMcpToolCall(buildMcpToolCall(facts));
          }
        } catch (writeError) {
          options.onError(writeError);
        }
      }
    }
  };
  const { tracker } = options;
  return tracker ? (tool, call) => tracker.track(audited(tool, call)) : audited;
}
