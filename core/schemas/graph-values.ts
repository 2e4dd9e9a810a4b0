import { z } from 'zod';

/** The five routes of the graph (spec §4.5.3). The fifth is `scope_select`, not "select" (spec §11.1). */
export const Route = z.enum(['answer', 'rewrite', 'clarify', 'scope_select', 'no_knowledge']);
export type Route = z.infer<typeof Route>;

/** The status paired with each route (spec §4.5.4). */
export const RetrievalStatus = z.enum([
  'answerable',
  'partial',
  'needs_rewrite',
  'needs_clarification',
  'needs_scope_selection',
  'no_knowledge',
]);
export type RetrievalStatus = z.infer<typeof RetrievalStatus>;

export const Relevance = z.enum(['none', 'weak', 'strong']);
export type Relevance = z.infer<typeof Relevance>;

export const Answerability = z.enum(['none', 'partial', 'sufficient']);
export type Answerability = z.infer<typeof Answerability>;

export const Ambiguity = z.enum(['none', 'missing_slot', 'multiple_candidates']);
export type Ambiguity = z.infer<typeof Ambiguity>;

export const Complexity = z.enum(['simple', 'complex']);
export type Complexity = z.infer<typeof Complexity>;

export const RewriteMethod = z.enum(['step_back', 'hyde']);
export type RewriteMethod = z.infer<typeof RewriteMethod>;

export const RetrievalStage = z.enum(['initial', 'rewritten', 'synthesis', 'hitl_targeted_retrieval']);
export type RetrievalStage = z.infer<typeof RetrievalStage>;

/** The routes and statuses that stop the run to ask a person (spec §4.1 `_is_hitl_result`). */
export const HITL_ROUTES: ReadonlySet<string> = new Set<Route>(['clarify', 'scope_select']);
export const HITL_STATUSES: ReadonlySet<string> = new Set<RetrievalStatus>([
  'needs_clarification',
  'needs_scope_selection',
]);

/** spec §4.4 step 5: the constant tool name in every trace. */
export const TOOL_NAME = 'search_knowledge_base';
