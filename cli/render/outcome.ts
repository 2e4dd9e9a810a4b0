import type { RagOutcome } from '../../core/schemas/run-io';
import { EXIT } from '../exit-codes';
import { routePath } from './route-path';

export function exitCodeOf(outcome: RagOutcome): number {
  if (outcome.status === 'completed') return EXIT.ok;
  if (outcome.status === 'awaiting_input') return EXIT.awaitingInput;
  return EXIT.failed;
}

const preview = (text: string | undefined, length = 100): string => {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return [...flat].length > length ? `${[...flat].slice(0, length - 1).join('')}…` : flat;
};

/** A short human summary of an outcome: route and status, the way there, the evidence, the pending question. */
export function renderOutcome(outcome: RagOutcome, uiBaseUrl: string | null): string {
  const lines = [
    `${outcome.status.toUpperCase()}  route=${outcome.route ?? '-'}  status=${outcome.retrieval_status ?? '-'}`,
    `  run ${outcome.workflowId}${uiBaseUrl ? `  ${uiBaseUrl}/namespaces/default/workflows/${encodeURIComponent(outcome.workflowId)}` : ''}`,
  ];
  const path = routePath(outcome);
  if (path.length > 0) lines.push(`  path ${path.join(' → ')}`);
  if (outcome.error) lines.push(`  error ${outcome.error.type}: ${outcome.error.message}`);
  outcome.docs.slice(0, 5).forEach((doc, i) => {
    const score = doc.rerank_score ?? doc.score;
    lines.push(`  [${i + 1}] ${doc.filename ?? '?'} p${doc.page_number ?? '-'}${score === undefined ? '' : ` score=${score.toFixed(4)}`}  ${preview(doc.text)}`);
  });
  if (outcome.docs.length > 5) lines.push(`  … ${outcome.docs.length - 5} more`);
  if (outcome.hitl) {
    lines.push(`  question (round ${outcome.hitl.round}): ${outcome.hitl.prompt}`);
    outcome.hitl.options.forEach((option, i) => lines.push(`    ${i + 1}. ${option}`));
  }
  return lines.join('\n');
}
