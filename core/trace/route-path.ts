import type { RagTrace } from '../schemas/rag-trace';
import type { RouteNode, RouteNodeKind, RoutePath } from '../schemas/run-detail';
import type { HitlRound, RagOutcome } from '../schemas/run-io';

/*
 * The graph a run actually walked (issue 16), from its outcome and normalized trace: question → fast path or
 * planner → (retrieve → grade [→ rewrite → retrieve → grade]) or (sub-questions in parallel → synthesis) → one
 * HITL round after another (ask → answer → targeted retrieval → grade) → answer, or the route it stopped at.
 *
 * What the record cannot say is left out rather than guessed: a resumed pass starts a new trace, so a rewrite of an
 * earlier pass, and the routes of sub-questions before a clarification, are known only while their trace lasts.
 */

const FAST_PATH_PREFIX = 'obvious_simple_fast_path';
const REWRITE_LABEL: Record<string, string> = { step_back: 'rewrite (step-back)', hyde: 'rewrite (HyDE)' };

class PathBuilder {
  readonly nodes: RouteNode[] = [];
  readonly edges: RoutePath['edges'] = [];
  private tips: string[] = [];

  /** Adds a node after every current tip (one, or all sub-questions before synthesis); it becomes the tip. */
  then(id: string, kind: RouteNodeKind, label: string, detail: string | null = null): this {
    this.nodes.push({ id, kind, label, detail });
    for (const from of this.tips) this.edges.push({ from, to: id });
    this.tips = [id];
    return this;
  }

  /** Nodes side by side, each after the current tip; together they become the tips. */
  fanOut(nodes: RouteNode[]): this {
    const from = this.tips;
    for (const node of nodes) {
      this.nodes.push(node);
      for (const tip of from) this.edges.push({ from: tip, to: node.id });
    }
    this.tips = nodes.map((node) => node.id);
    return this;
  }
}

const text = (value: string | null | undefined): string | null => (value ? value : null);

function firstPass(path: PathBuilder, trace: RagTrace | null, routeAfter: string | null): void {
  if (!trace?.complexity) return;
  const fastPath = trace.complexity_reason?.startsWith(FAST_PATH_PREFIX) ?? false;
  if (fastPath) path.then('fast-path', 'fast_path', 'fast path: simple', text(trace.complexity_reason));
  else path.then('planner', 'planner', `planner: ${trace.complexity}`, text(trace.complexity_reason));
  if (trace.complexity === 'complex') {
    const subs = trace.sub_traces ?? [];
    const questions = subs.length > 0 ? subs.map((sub) => sub.query ?? '') : (trace.sub_questions ?? []);
    path.fanOut(
      questions.map((question, i) => {
        const steps = [question, subs[i]?.rewrite_method ? REWRITE_LABEL[subs[i]?.rewrite_method ?? ''] : null, subs[i]?.route];
        return { id: `sub-${i + 1}`, kind: 'sub_question' as const, label: `sub-question ${i + 1}`, detail: steps.filter(Boolean).join(' → ') };
      }),
    );
    path.then('synthesis', 'synthesis', 'synthesis', routeAfter ? `→ ${routeAfter}` : null);
    return;
  }
  const rewritten = Boolean(trace.rewrite_method);
  // After a clarification the trace is the resumed pass's: its query is the refined question, not the first one.
  path.then('retrieve-initial', 'retrieve', 'retrieve (initial)', trace.hitl_resumed ? null : text(trace.query));
  path.then('grade-initial', 'grade', 'grade', rewritten ? '→ rewrite' : routeAfter ? `→ ${routeAfter}` : null);
  if (!rewritten) return;
  path.then('rewrite', 'rewrite', REWRITE_LABEL[trace.rewrite_method ?? ''] ?? 'rewrite', text(trace.rewritten_query));
  path.then('retrieve-rewritten', 'retrieve', 'retrieve (rewritten)', text(trace.rewritten_query));
  path.then('grade-rewritten', 'grade', 'grade', routeAfter ? `→ ${routeAfter}` : null);
}

function resumedPass(path: PathBuilder, id: string, answer: string | null, routeAfter: string | null): void {
  path.then(`retrieve-${id}`, 'retrieve', 'retrieve (targeted)', answer ? `with "${answer}"` : null);
  path.then(`grade-${id}`, 'grade', 'grade', routeAfter ? `→ ${routeAfter}` : null);
}

const ROUND_LABEL: Record<HitlRound['outcome'], string> = { answered: 'answered', waiting: 'waiting for a person', timed_out: 'timed out' };

/**
 * The nodes and edges `outcome`'s run took, in order (ids unique within the path). `question`: the run's input
 * question, for the first node (a trace after a clarification holds only the refined one).
 */
export function routePathOf(outcome: RagOutcome, question: string | null = null): RoutePath {
  const trace = outcome.rag_trace;
  const rounds = [...outcome.rounds].sort((a, b) => a.round - b.round);
  const asked = rounds.filter((round) => round.round >= 1);
  // The route each pass settled on: the next round's (it asked because of it), or the run's own for the last pass.
  const routeAfterPass = (pass: number): string | null => asked[pass]?.route ?? outcome.route;
  const path = new PathBuilder().then('question', 'question', 'question', question ?? (trace?.hitl_resumed ? null : text(trace?.query)));
  const resume = rounds.find((round) => round.round === 0);
  if (resume) {
    path.then('resume', 'hitl', 'resume from snapshot', `${resume.route}: "${resume.answer ?? ''}"`);
    resumedPass(path, 'resume', resume.answer, routeAfterPass(0));
  } else {
    firstPass(path, trace, routeAfterPass(0));
  }
  asked.forEach((round, i) => {
    const id = `hitl-${round.round}`;
    path.then(id, 'hitl', `${round.route} (round ${round.round}): ${ROUND_LABEL[round.outcome]}`, text(round.prompt));
    if (round.outcome === 'answered') resumedPass(path, id, round.answer, routeAfterPass(i + 1));
  });
  if (outcome.status === 'failed') path.then('failed', 'stop', 'failed', outcome.error ? `${outcome.error.type}: ${outcome.error.message}` : null);
  // Issue 44 §5: a greeting, a thanks or a question about the conversation went from the question to the answer.
  else if (outcome.status === 'completed' && trace?.needs_retrieval === false) path.then('answer', 'answer', 'answer', `without retrieval: ${trace.intent?.intent ?? 'chat'}`);
  else if (outcome.status === 'completed' && outcome.route === 'answer') path.then('answer', 'answer', 'answer', outcome.answer ? `${outcome.answer.citations.length} citation(s), ${outcome.answer.verification.status}` : text(outcome.answer_null_reason));
  else if (outcome.status === 'completed' && outcome.route) path.then(`stop-${outcome.route}`, 'stop', outcome.route, text(outcome.retrieval_status));
  return { nodes: path.nodes, edges: path.edges };
}
