import type { RagOutcome } from '../../core/schemas/run-io';

/**
 * The way a run went, step by step: `simple → rewrite (step-back) → clarify (waiting)`,
 * `clarify ← "Aurora X2" → answer`, `complex: 2 sub-questions (answer, answer) → synthesis → answer`.
 * Built from the normalized trace and the HITL rounds (the trace keeps only the last grade, so the route the
 * first grade chose before a rewrite is not shown; a rewrite is placed before the rounds, where the graph does it
 * on a first pass).
 */
export function routePath(outcome: RagOutcome): string[] {
  const trace = outcome.rag_trace;
  const steps: string[] = [];
  if (trace?.complexity === 'complex') {
    const subs = trace.sub_traces ?? [];
    steps.push(`complex: ${subs.length} sub-question(s) (${subs.map((sub) => sub.route ?? '?').join(', ')})`, 'synthesis');
  } else if (trace?.complexity) {
    steps.push(trace.complexity);
  }
  if (trace?.rewrite_method) steps.push(`rewrite (${trace.rewrite_method.replace('_', '-')})`);
  for (const round of outcome.rounds) {
    if (round.round < 1) continue; // round 0 is the answer a resumed run started with
    steps.push(round.outcome === 'answered' ? `${round.route} ← "${round.answer ?? ''}"` : `${round.route} (${round.outcome.replace('_', ' ')})`);
  }
  if (outcome.status !== 'awaiting_input' && outcome.route) steps.push(outcome.route);
  if (outcome.status === 'failed') steps.push('failed');
  return steps;
}
