import { dedupeDocuments } from '../retrieval/dedupe-documents';
import { TOOL_NAME, type RetrievalStatus, type Route } from '../schemas/graph-values';
import type { RagSubTrace } from '../schemas/rag-trace';
import type { Chunk } from '../schemas/retrieved-chunk';
import type { TraceFragment } from '../trace/fragment';
import { normalizeRagSubTrace } from '../trace/normalize';
import type { RawRagTrace } from '../trace/raw-trace';
import { formatDocs } from './format-docs';

/** What one sub-question's run hands to synthesis (spec §4.9). */
export type SubResult = {
  question: string;
  docs: Chunk[];
  retrieval_status: string | null;
  route: string | null;
  rag_trace: RawRagTrace | null;
};

export type SynthesisInput = {
  question: string;
  complexityReason: string | null;
  subQuestions: string[];
  /** In sub-question order (spec §10.1), whatever order they finished in. */
  subResults: SubResult[];
};

export type SynthesisResult = {
  docs: Chunk[];
  context: string;
  route: Route;
  retrievalStatus: RetrievalStatus;
  hitlPrompt: string;
  hitlOptions: string[];
  /** Number of evidence chunks before dedupe. */
  mergedCount: number;
  traceFragment: TraceFragment;
};

const USABLE_STATUSES: ReadonlySet<string> = new Set(['answerable', 'partial']);
const HITL_STATUSES: ReadonlySet<string> = new Set(['needs_clarification', 'needs_scope_selection']);
/** spec §4.10 step 7: sub-question prompts are joined with a full-width semicolon. */
export const HITL_PROMPT_JOINER = '；';

const unique = <T>(items: T[]): T[] => [...new Set(items)];

type HitlMerge = { status: RetrievalStatus; route: Route; prompt: string; options: string[] };

/** Sub-question HITL requests, merged only when no sub-question found usable evidence (spec §4.10 step 7). */
function mergeSubHitl(subTraces: RagSubTrace[]): HitlMerge | null {
  const hitlTraces = subTraces.filter((trace) => HITL_STATUSES.has(trace.retrieval_status ?? ''));
  if (hitlTraces.length === 0) return null;
  const chosen =
    hitlTraces.find((trace) => trace.retrieval_status === 'needs_scope_selection') ?? (hitlTraces[0] as RagSubTrace);
  const status = (chosen.retrieval_status || 'needs_clarification') as RetrievalStatus;
  return {
    status,
    route: status === 'needs_scope_selection' ? 'scope_select' : 'clarify',
    prompt: unique(hitlTraces.map((trace) => trace.hitl_prompt ?? '').filter(Boolean)).join(HITL_PROMPT_JOINER),
    options: unique(hitlTraces.flatMap((trace) => trace.hitl_options ?? [])),
  };
}

/**
 * `synthesis` (spec §4.10): merges the sub-questions' evidence in sub-question order, dedupes it, renumbers
 * rrf_rank, and decides one of four outcomes. Sub-traces keep the values their sub-question produced (DESIGN §4;
 * the original leaks the renumbering into them, spec §10.2).
 */
export function synthesize(input: SynthesisInput): SynthesisResult {
  const { subResults } = input;
  const allDocs = subResults.flatMap((sub) => (USABLE_STATUSES.has(sub.retrieval_status ?? '') ? sub.docs : []));
  const docs = dedupeDocuments(allDocs).map((doc, index) => ({ ...doc, rrf_rank: index + 1 }));
  const subTraces = subResults
    .filter((sub) => sub.rag_trace && Object.keys(sub.rag_trace).length > 0)
    .map((sub) => normalizeRagSubTrace(sub.rag_trace))
    .filter((trace): trace is RagSubTrace => trace !== null);

  const hasDocs = docs.length > 0;
  const anyPartial = subResults.some((sub) => sub.retrieval_status === 'partial');
  const hitl = hasDocs ? null : mergeSubHitl(subTraces);
  const retrievalStatus: RetrievalStatus = hasDocs
    ? anyPartial ? 'partial' : 'answerable'
    : hitl?.status ?? 'no_knowledge';
  const route: Route = hasDocs ? 'answer' : hitl?.route ?? 'no_knowledge';
  const answerability = retrievalStatus === 'partial' ? 'partial' : hasDocs ? 'sufficient' : 'none';
  const hitlPrompt = hitl?.prompt ?? '';
  const hitlOptions = hitl?.options ?? [];

  return {
    docs,
    context: formatDocs(docs),
    route,
    retrievalStatus,
    hitlPrompt,
    hitlOptions,
    mergedCount: allDocs.length,
    traceFragment: {
      startsTrace: true,
      fields: {
        tool_used: true,
        tool_name: TOOL_NAME,
        query: input.question,
        retrieved_chunks: docs,
        retrieval_stage: 'synthesis',
        complexity: 'complex',
        complexity_reason: input.complexityReason || '',
        sub_questions: [...input.subQuestions],
        sub_agent_count: subResults.length,
        synthesis_merged_count: allDocs.length,
        sub_traces: subTraces,
        retrieval_status: retrievalStatus,
        evidence_relevance: hasDocs ? 'strong' : 'none',
        evidence_answerability: answerability,
        evidence_confidence: null,
        route,
        hitl_prompt: hitlPrompt,
        hitl_options: hitlOptions,
      },
    },
  };
}
