import type { RagSubTrace, RagTrace } from '../../core/schemas/rag-trace';

const RETRIEVAL_LINE = (trace: RagSubTrace): string =>
  `retrieval ${trace.retrieval_mode ?? '-'} k=${trace.candidate_k ?? '-'}(${trace.candidate_k_source ?? '-'}) recall=${trace.recall_count ?? '-'} ` +
  `merged=${trace.auto_merge_replaced_chunks ?? 0}/${trace.auto_merge_steps ?? 0} rerank=${trace.rerank_applied ? (trace.rerank_model ?? 'on') : 'off'}` +
  `${trace.rerank_error ? ` (${trace.rerank_error})` : ''} final=${trace.post_threshold_count ?? '-'}`;

function gradeLine(trace: RagSubTrace): string {
  return `grade ${trace.evidence_relevance ?? '-'}/${trace.evidence_answerability ?? '-'}/${trace.evidence_ambiguity ?? '-'} ` +
    `conf=${trace.evidence_confidence ?? '-'} → ${trace.route ?? '-'} (${trace.retrieval_status ?? '-'})${trace.evidence_reason ? `  ${trace.evidence_reason}` : ''}`;
}

function body(trace: RagSubTrace, indent: string): string[] {
  const lines: string[] = [];
  lines.push(`${indent}query: ${trace.query ?? '-'}  [stage ${trace.retrieval_stage ?? '-'}]`);
  if (trace.complexity) lines.push(`${indent}complexity: ${trace.complexity} (${trace.complexity_reason ?? ''})`);
  if (trace.hitl_resumed) lines.push(`${indent}resumed from ${trace.hitl_resume_from_route ?? '-'} with answer "${trace.hitl_answer ?? ''}"`);
  if (trace.rewrite_method) lines.push(`${indent}rewrite ${trace.rewrite_method}: ${(trace.step_back_question ?? trace.hyde_document ?? '').slice(0, 80)}`);
  if (trace.retrieval_mode) lines.push(`${indent}${RETRIEVAL_LINE(trace)}`);
  if (trace.route) lines.push(`${indent}${gradeLine(trace)}`);
  if (trace.hitl_prompt) lines.push(`${indent}asks: ${trace.hitl_prompt}${trace.hitl_options?.length ? `  options: ${trace.hitl_options.join(' | ')}` : ''}`);
  const chunks = trace.retrieved_chunks ?? [];
  lines.push(`${indent}evidence: ${chunks.length} chunk(s)${chunks.length ? ` — ${chunks.slice(0, 3).map((c) => c.filename).join(', ')}` : ''}`);
  return lines;
}

/** "intent greeting (rules, confidence 0.95, greeting:你好) → needs_retrieval false: answered without retrieval". */
function intentLine(trace: RagTrace): string {
  const intent = trace.intent;
  const why = intent ? `${intent.intent} (${intent.decided_by}, confidence ${intent.confidence}${intent.rule ? `, ${intent.rule}` : ''})` : '-';
  const retrieval = trace.needs_retrieval === false ? 'needs_retrieval false: answered without retrieval' : 'needs_retrieval true';
  return `intent ${why} → ${retrieval}`;
}

/** A readable tree of a normalized trace: route path, grades, retrieval meta, sub-questions. */
export function renderTraceTree(trace: RagTrace | null): string {
  if (!trace) return '(no trace yet)';
  // Issue 44 §5: a run answered without retrieval has no retrieval or grade to show, only why.
  if (trace.needs_retrieval === false) return ['rag trace', `  query: ${trace.query ?? '-'}`, `  ${intentLine(trace)}`].join('\n');
  const lines = ['rag trace', ...(trace.intent ? [`  ${intentLine(trace)}`] : []), ...body(trace, '  ')];
  (trace.sub_traces ?? []).forEach((sub, i) => {
    lines.push(`  sub-question ${i + 1}: ${trace.sub_questions?.[i] ?? sub.query ?? ''}`);
    lines.push(...body(sub, '    '));
  });
  if (trace.synthesis_merged_count !== undefined) {
    lines.push(`  synthesis: ${trace.sub_agent_count ?? 0} sub-question(s), ${trace.synthesis_merged_count} chunk(s) merged → ${trace.retrieved_chunks?.length ?? 0}`);
  }
  return lines.join('\n');
}
