import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { combinedDecision, probabilityFeatures, type ProbabilityDecision } from '../../core/grading/probability-decision';
import { FITTED_DECISION } from '../../core/grading/decision-coefficients';
import { LOCAL_MODEL } from '../../core/local-model';
import { REPO_ROOT } from '../knowledge/common';
import type { YesNoRow } from './collect-yes-no';

/*
 * Fits the grade by probability (issue 43 §1): logistic regression of "the evidence answers" on logit(P offline) and
 * logit(max P(yes) of the first candidates), from bench/grading/collect-yes-no.ts's calibration rows, each set
 * weighing the same, L2-regularized (FIT_L2, default 1.0), by Newton's method. The answer threshold is chosen as
 * fit-decision.ts chooses its own: the best mean over sets of each set's worse class rate. Prints the offline
 * decision alone on the same rows beside it. --write writes core/grading/probability-coefficients.ts.
 *
 *   npx tsx bench/grading/fit-probability.ts --rows .data/grading/yes-no/calibration.jsonl [--candidates 2] [--write]
 */

const L2 = Number(process.env.FIT_L2 ?? 1.0);
const REWRITE_SHARE = 0.5;

type Example = { x: [number, number]; y: 0 | 1; w: number; row: YesNoRow };

function fit(examples: readonly Example[]): { weights: [number, number]; intercept: number } {
  let beta = [0, 0, 0];
  for (let iteration = 0; iteration < 100; iteration += 1) {
    const grad = [0, 0, 0];
    const hess = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
    for (const { x, y, w } of examples) {
      const xi = [1, ...x];
      const p = 1 / (1 + Math.exp(-xi.reduce((s, v, i) => s + v * beta[i]!, 0)));
      for (let i = 0; i < 3; i += 1) {
        grad[i]! += w * (p - y) * xi[i]!;
        for (let j = 0; j < 3; j += 1) hess[i]![j]! += w * p * (1 - p) * xi[i]! * xi[j]!;
      }
    }
    for (let i = 1; i < 3; i += 1) {
      grad[i]! += L2 * beta[i]!;
      hess[i]![i]! += L2;
    }
    const step = solve3(hess, grad);
    beta = beta.map((b, i) => b - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return { intercept: beta[0]!, weights: [beta[1]!, beta[2]!] };
}

function solve3(a: number[][], b: number[]): number[] {
  const m = a.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < 3; c += 1) {
    let p = c;
    for (let r = c + 1; r < 3; r += 1) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < 3; r += 1) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= 3; k += 1) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((r, i) => r[3]! / r[i]!);
}

/** Per set, the evidence that answers answered and the evidence that does not left unanswered, at `at`. */
function classRates(rows: readonly YesNoRow[], p: (row: YesNoRow) => number, at: number) {
  const positives = rows.filter((row) => row.label === 1);
  const negatives = rows.filter((row) => row.label === 0);
  return { positives: positives.length, answered: positives.filter((row) => p(row) >= at).length, negatives: negatives.length, unanswered: negatives.filter((row) => p(row) < at).length };
}

function bestThreshold(sets: Map<string, YesNoRow[]>, p: (row: YesNoRow) => number): { at: number; score: number } {
  let best = { at: 0.5, score: -1 };
  for (let at = 0.05; at <= 0.951; at += 0.01) {
    const worse = [...sets.values()].map((rows) => {
      const r = classRates(rows, p, at);
      return Math.min(...[r.positives ? r.answered / r.positives : null, r.negatives ? r.unanswered / r.negatives : null].filter((x): x is number => x !== null));
    });
    const score = worse.reduce((a, b) => a + b, 0) / worse.length;
    if (score >= best.score - 1e-12) best = { at: Math.round(at * 100) / 100, score };
  }
  return best;
}

const pct = (n: number, d: number) => (d === 0 ? '  –  ' : `${((100 * n) / d).toFixed(0).padStart(3)} %`);

function main(): void {
  const { values } = parseArgs({ options: { rows: { type: 'string', multiple: true }, candidates: { type: 'string', default: '2' }, write: { type: 'boolean', default: false }, version: { type: 'string', default: 'yes-no-v2' } }, strict: true });
  if (!values.rows?.length) throw new Error('usage: fit-probability.ts --rows FILE.jsonl [--rows …] [--write]');
  const candidates = Number(values.candidates);
  const rows = values.rows.flatMap((file) => readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as YesNoRow)).map((row) => ({ ...row, yes: row.yes.slice(0, candidates) }));
  const usable = rows.filter((row) => probabilityFeatures(row.offline, row.yes) !== null);
  const sha256 = createHash('sha256').update(usable.map((row) => JSON.stringify(row)).sort().join('\n')).digest('hex');
  const sets = new Map<string, YesNoRow[]>();
  for (const row of usable) sets.set(row.set, [...(sets.get(row.set) ?? []), row]);
  const weightOf = (set: string) => usable.length / (sets.size * (sets.get(set)?.length ?? 1));
  const examples: Example[] = usable.map((row) => ({ row, y: row.label, w: weightOf(row.set), x: probabilityFeatures(row.offline, row.yes) as [number, number] }));
  const { weights, intercept } = fit(examples);
  const draft: ProbabilityDecision = {
    version: values.version, candidates, weights: [r4(weights[0]), r4(weights[1])], intercept: r4(intercept), answerAt: 0.5, rewriteAt: 0.25,
    fittedOn: { sets: [...sets.keys()].sort(), questions: usable.length, sha256, date: new Date().toISOString().slice(0, 10), model: LOCAL_MODEL.id },
  };
  const combined = (row: YesNoRow) => combinedDecision(row.offline, row.yes, draft, FITTED_DECISION).p;
  const best = bestThreshold(sets, combined);
  const model: ProbabilityDecision = { ...draft, answerAt: best.at, rewriteAt: Math.round(best.at * REWRITE_SHARE * 100) / 100 };
  const yesAlone = (row: YesNoRow) => Math.max(...row.yes.filter((p): p is number => p !== null));
  const yesBest = bestThreshold(sets, yesAlone);
  console.log(`fitted on ${usable.length} questions (${rows.length - usable.length} without a P(yes)) of ${[...sets].map(([s, r]) => `${s} (${r.length})`).join(', ')}; sha256 ${sha256.slice(0, 16)}…`);
  console.log(`weights: logit(P offline) ${model.weights[0]}, logit(max P(yes)) ${model.weights[1]}, intercept ${model.intercept}; answerAt ${model.answerAt}, rewriteAt ${model.rewriteAt} (mean worse-class rate ${best.score.toFixed(3)}; P(yes) alone at its best threshold ${yesBest.at}: ${yesBest.score.toFixed(3)})`);
  console.log('per set: evidence that answers answered | evidence that does not left unanswered — offline v3 alone (answerAt ' + FITTED_DECISION.answerAt + ') → combined');
  let totals = { offline: 0, combined: 0, n: 0 };
  for (const [set, own] of sets) {
    const off = classRates(own, (row) => row.offline, FITTED_DECISION.answerAt);
    const com = classRates(own, combined, model.answerAt);
    totals = { offline: totals.offline + off.answered + off.unanswered, combined: totals.combined + com.answered + com.unanswered, n: totals.n + own.length };
    console.log(`  ${set.padEnd(22)} ${pct(off.answered, off.positives)} | ${pct(off.unanswered, off.negatives)}  →  ${pct(com.answered, com.positives)} | ${pct(com.unanswered, com.negatives)}   (${off.positives}+${off.negatives})`);
  }
  console.log(`  accuracy over all rows: offline ${pct(totals.offline, totals.n)} → combined ${pct(totals.combined, totals.n)} (in-sample: the rows it was fitted on)`);
  if (values.write) {
    const file = path.join(REPO_ROOT, 'core/grading/probability-coefficients.ts');
    writeFileSync(
      file,
      `import type { ProbabilityDecision } from './probability-decision';\n\n` +
        `/*\n * Written by bench/grading/fit-probability.ts (do not edit by hand): the grade by probability's combination of the\n` +
        ` * offline decision and the local model's P(yes), fitted on the calibration rows named in fittedOn.\n */\n` +
        `export const PROBABILITY_DECISION: ProbabilityDecision = ${JSON.stringify(model, null, 2)};\n`,
    );
    console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
  }
}

const r4 = (value: number): number => Math.round(value * 1e4) / 1e4;

if (require.main === module) main();
