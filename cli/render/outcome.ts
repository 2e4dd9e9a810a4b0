import type { RagOutcome } from '../../core/schemas/run-io';
import { EXIT } from '../exit-codes';
import { renderAnswer } from './answer';
import { routePath } from './route-path';
import { shownPage } from '../../core/schemas/page-number';
import { shownStatus } from '../../core/run/shown-status';

export function exitCodeOf(outcome: RagOutcome): number {
  // A run that could not read the knowledge base completed, but its route says less than it seems (issue 14 §2).
  if (outcome.status === 'completed') return outcome.degraded ? EXIT.unavailable : EXIT.ok;
  if (outcome.status === 'awaiting_input') return EXIT.awaitingInput;
  // A run that failed because a service (a model endpoint, after its retries) could not be reached: 4, as when the
  // CLI itself cannot reach one (issue 33 §5).
  return outcome.error?.type === 'SERVICE_UNAVAILABLE' ? EXIT.unavailable : EXIT.failed;
}

const preview = (text: string | undefined, length = 100): string => {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return [...flat].length > length ? `${[...flat].slice(0, length - 1).join('')}…` : flat;
};

/** Why the run routed as it did: the last grade (relevance, answerability, confidence) and its reason. */
function whyLine(outcome: RagOutcome): string | null {
  const trace = outcome.rag_trace;
  if (!trace?.evidence_relevance) return null;
  const confidence = trace.evidence_confidence === undefined || trace.evidence_confidence === null ? '' : `, confidence ${trace.evidence_confidence}`;
  return `  why  relevance ${trace.evidence_relevance}, answerability ${trace.evidence_answerability ?? '-'}${confidence}${trace.evidence_reason ? ` — ${preview(trace.evidence_reason, 120)}` : ''}`;
}

/**
 * A human summary of an outcome: the answer and its sources first (or the no-knowledge sentence), then route and
 * status, the way there and why, the evidence, the pending question.
 */
const COMPONENT_NAMES = { embeddings: 'the embeddings server', knowledge_store: 'the knowledge store (Milvus or the parent store)' } as const;

/** Said whenever a retrieval could not read the knowledge base, so "no knowledge" is not taken for "not there". */
function degradedLine(outcome: RagOutcome): string | null {
  const degraded = outcome.degraded;
  if (!degraded) return null;
  const lost = degraded.retrievals === degraded.of ? 'every retrieval' : `${degraded.retrievals} of ${degraded.of} retrievals`;
  return `  DEGRADED the knowledge base could not be read (${lost}): ${COMPONENT_NAMES[degraded.component]} failed: ${preview(degraded.reason, 200)}`;
}

/**
 * A recall that fell back to dense search alone (spec §6.1 step 4: the hybrid search failed, e.g. Milvus refused the
 * BM25 leg): the run completed and its route stands, but without keyword matches, and nothing else in the output
 * would say so.
 */
function recallLine(outcome: RagOutcome): string | null {
  if (outcome.rag_trace?.retrieval_mode !== 'dense_fallback') return null;
  return "  recall dense search alone: the hybrid search (dense + BM25) failed, so no keyword match was used; the console's run view shows each attempt and its error";
}

/** On a follow-up (issue 25 §1): what the question was read as, from which turns, and why. */
function conversationLine(outcome: RagOutcome): string | null {
  const conversation = outcome.conversation;
  if (!conversation || conversation.turnsBefore === 0) return null;
  const turns = conversation.turnsUsed.length === 0 ? 'no earlier turn' : `turns ${conversation.turnsUsed.join(', ')}`;
  const dropped = conversation.turnsDropped > 0 ? `; ${conversation.turnsDropped} older dropped` : '';
  const read = conversation.standaloneQuestion === conversation.question ? 'as asked' : `as "${preview(conversation.standaloneQuestion, 120)}"`;
  return `  turn ${conversation.turnsBefore + 1}  read ${read} (${conversation.condensedBy}: ${preview(conversation.why, 120)}); the answer saw ${turns}${dropped}`;
}

export function renderOutcome(outcome: RagOutcome, uiBaseUrl: string | null, options: { answerTextShown?: boolean } = {}): string {
  // A streamed answer's text is on the screen already (cli/render/answer-stream.ts): its sources and checks follow.
  const answer = renderAnswer(outcome);
  const lines = [
    ...(options.answerTextShown && outcome.answer && answer[0] === outcome.answer.text ? answer.slice(1) : answer),
    // A run closed from outside heads with how (CANCELLED, TERMINATED), not FAILED (issue 43 §6).
    `${shownStatus(outcome).toUpperCase()}  route=${outcome.route ?? '-'}  status=${outcome.retrieval_status ?? '-'}`,
    `  run ${outcome.workflowId}${uiBaseUrl ? `  ${uiBaseUrl}/namespaces/default/workflows/${encodeURIComponent(outcome.workflowId)}` : ''}`,
    // Continuing a conversation is explicit (issue 33 §2): say how.
    `  session ${outcome.sessionId}  (a follow-up in it: ragtime ask --session ${outcome.sessionId} "…")`,
  ];
  const conversation = conversationLine(outcome);
  if (conversation) lines.push(conversation);
  const path = routePath(outcome);
  if (path.length > 0) lines.push(`  path ${path.join(' → ')}`);
  const why = whyLine(outcome);
  if (why) lines.push(why);
  const degraded = degradedLine(outcome);
  if (degraded) lines.push(degraded);
  const recall = recallLine(outcome);
  if (recall) lines.push(recall);
  if (outcome.error) lines.push(`  error ${outcome.error.type}: ${outcome.error.message}`);
  outcome.docs.slice(0, 5).forEach((doc, i) => {
    const score = doc.rerank_score ?? doc.score;
    lines.push(`  [${i + 1}] ${doc.filename ?? '?'} p${shownPage(doc.page_number) ?? '-'}${score === undefined ? '' : ` score=${score.toFixed(4)}`}  ${preview(doc.text)}`);
  });
  if (outcome.docs.length > 5) lines.push(`  … ${outcome.docs.length - 5} more`);
  if (outcome.hitl) {
    lines.push(`  question (round ${outcome.hitl.round}): ${outcome.hitl.prompt}`);
    outcome.hitl.options.forEach((option, i) => lines.push(`    ${i + 1}. ${option}`));
  }
  return lines.join('\n');
}
