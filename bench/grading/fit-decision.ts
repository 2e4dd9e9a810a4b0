import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { answerProbability, type FittedDecision } from '../../core/grading/fitted-decision';
import { SIGNAL_NAMES, type GradeSignals } from '../../core/grading/signals';
import { REPO_ROOT } from '../knowledge/common';
import { signalsOf, type SignalRow } from './collect-signals';

/*
 * Fits the offline grader's decision (issue 42 §3): logistic regression of "the evidence answers" on the grading
 * signals of the calibration splits (bench/grading/collect-signals.ts), each set weighing the same whatever its size,
 * L2-regularized, by Newton's method. The answer threshold has the best mean over sets of each set's worse class
 * rate. Writes core/grading/decision-coefficients.ts with the data's sha256.
 *
 *   npx tsx bench/grading/fit-decision.ts --signals .data/grading/<set>.jsonl [--signals …] [--sweep] [--at P] [--write]
 *   (FIT_L2 sets the L2 penalty, default 1.0)
 */

/** L2 penalty on the standardized weights. */
const L2 = Number(process.env.FIT_L2 ?? 1.0);
/** Below answerAt, a rewrite is tried down to this share of it; lower, the evidence holds nothing on the question. */
const REWRITE_SHARE = 0.5;

type Example = { x: number[]; y: 0 | 1; w: number; row: SignalRow; signals: GradeSignals };

/** Label: the evidence answers when the question is answerable and its gold document was retrieved. */
const labelOf = (row: SignalRow): 0 | 1 => (row.answerable && row.gold_in_evidence ? 1 : 0);

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < n; c += 1) {
    let p = c;
    for (let r = c + 1; r < n; r += 1) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r += 1) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k += 1) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((r, i) => r[n]! / r[i]!);
}

function fit(examples: readonly Example[], dims: number): { weights: number[]; intercept: number } {
  let beta = new Array<number>(dims + 1).fill(0);
  for (let iteration = 0; iteration < 50; iteration += 1) {
    const grad = new Array<number>(dims + 1).fill(0);
    const hess = Array.from({ length: dims + 1 }, () => new Array<number>(dims + 1).fill(0));
    for (const { x, y, w } of examples) {
      const xi = [1, ...x];
      const p = 1 / (1 + Math.exp(-xi.reduce((s, v, i) => s + v * beta[i]!, 0)));
      for (let i = 0; i <= dims; i += 1) {
        grad[i]! += w * (p - y) * xi[i]!;
        for (let j = 0; j <= dims; j += 1) hess[i]![j]! += w * p * (1 - p) * xi[i]! * xi[j]!;
      }
    }
    for (let i = 1; i <= dims; i += 1) {
      grad[i]! += L2 * beta[i]!;
      hess[i]![i]! += L2;
    }
    const step = solve(hess, grad);
    beta = beta.map((b, i) => b - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { intercept: beta[0]!, weights: beta.slice(1) };
}

type Rates = { answered: number; positives: number; falseAnswers: number; negatives: number };
function rates(examples: readonly Example[], p: (e: Example) => number, at: number): Rates {
  const r = { answered: 0, positives: 0, falseAnswers: 0, negatives: 0 };
  for (const e of examples) {
    const yes = p(e) >= at;
    if (e.y === 1) {
      r.positives += e.w;
      r.answered += yes ? e.w : 0;
    } else {
      r.negatives += e.w;
      r.falseAnswers += yes ? e.w : 0;
    }
  }
  return r;
}

const pct = (n: number, d: number) => (d === 0 ? '   –  ' : `${((100 * n) / d).toFixed(1).padStart(5)} %`);

function main(): void {
  const { values } = parseArgs({ options: { signals: { type: 'string', multiple: true }, write: { type: 'boolean', default: false }, version: { type: 'string', default: 'meaning-v1' }, at: { type: 'string' }, sweep: { type: 'boolean', default: false } }, strict: true });
  if (!values.signals?.length) throw new Error('usage: fit-decision.ts --signals FILE.jsonl [--signals …] [--write]');
  const texts = values.signals.map((file) => readFileSync(file, 'utf8'));
  const rows = texts.flatMap((text) => text.trim().split('\n').map((line) => JSON.parse(line) as SignalRow)).filter((row) => !row.expected_route);
  const sha256 = createHash('sha256').update([...rows.map((row) => JSON.stringify(row))].sort().join('\n')).digest('hex');
  const perSet = new Map<string, number>();
  for (const row of rows) perSet.set(row.set, (perSet.get(row.set) ?? 0) + 1);
  const signals = rows.map(signalsOf);
  const raw = signals.map((row) => SIGNAL_NAMES.map((name) => row[name]));
  const mean = SIGNAL_NAMES.map((_, i) => raw.reduce((s, x) => s + x[i]!, 0) / raw.length);
  const scale = SIGNAL_NAMES.map((_, i) => Math.sqrt(raw.reduce((s, x) => s + (x[i]! - mean[i]!) ** 2, 0) / raw.length) || 1);
  const weightOf = (set: string) => rows.length / (perSet.size * (perSet.get(set) ?? 1));
  const examples: Example[] = rows.map((row, k) => ({ row, signals: signals[k]!, y: labelOf(row), w: weightOf(row.set), x: raw[k]!.map((v, i) => (v - mean[i]!) / scale[i]!) }));
  const { weights, intercept } = fit(examples, SIGNAL_NAMES.length);
  const draft: FittedDecision = {
    version: values.version, signals: SIGNAL_NAMES, mean: mean.map(r6), scale: scale.map(r6), weights: weights.map(r6), intercept: r6(intercept), answerAt: 0.5, rewriteAt: 0.25,
    fittedOn: { sets: [...perSet.keys()].sort(), questions: rows.length, sha256, date: new Date().toISOString().slice(0, 10) },
  };
  const p = (e: Example) => answerProbability(e.signals, draft);
  // The threshold: the best mean over sets of each set's worse class rate (evidence that answers answered, evidence
  // that does not left unanswered), as v2's thresholds were chosen (docs/offline-policy.md, "Calibration"); among
  // equals, the higher (fewer answers).
  let best = { at: 0.5, score: -1 };
  for (let at = 0.05; at <= 0.951; at += 0.01) {
    const worse = [...perSet.keys()].map((set) => {
      const r = rates(examples.filter((e) => e.row.set === set).map((e) => ({ ...e, w: 1 })), p, at);
      const classes = [r.positives > 0 ? r.answered / r.positives : null, r.negatives > 0 ? 1 - r.falseAnswers / r.negatives : null].filter((x): x is number => x !== null);
      return Math.min(...classes);
    });
    const score = worse.reduce((a, b) => a + b, 0) / worse.length;
    if (score >= best.score - 1e-12) best = { at: Math.round(at * 100) / 100, score };
  }
  if (values.at) best = { at: Number(values.at), score: 0 };
  if (values.sweep) {
    for (let at = 0.3; at <= 0.91; at += 0.05) {
      const cells = [...perSet.keys()].map((set) => {
        const r = rates(examples.filter((e) => e.row.set === set).map((e) => ({ ...e, w: 1 })), p, at);
        return `${set} ${pct(r.answered, r.positives)}/${pct(r.negatives - r.falseAnswers, r.negatives)}`;
      });
      console.log(`at ${at.toFixed(2)}: ${cells.join(' · ')}`);
    }
  }
  const model: FittedDecision = { ...draft, answerAt: best.at, rewriteAt: Math.round(best.at * REWRITE_SHARE * 100) / 100 };
  console.log(`fitted on ${rows.length} questions of ${[...perSet].map(([s, n]) => `${s} (${n})`).join(', ')}; sha256 ${sha256.slice(0, 16)}…`);
  console.log(`answerAt ${model.answerAt}, rewriteAt ${model.rewriteAt}`);
  console.log('signal                    weight (standardized)');
  SIGNAL_NAMES.forEach((name, i) => console.log(`  ${name.padEnd(24)} ${model.weights[i]!.toFixed(3).padStart(7)}`));
  console.log(`  ${'intercept'.padEnd(24)} ${model.intercept.toFixed(3).padStart(7)}`);
  console.log('\nfirst grade at answerAt, per set: the evidence answers → answered | does not → not answered | accuracy');
  for (const set of perSet.keys()) {
    const own = examples.filter((e) => e.row.set === set).map((e) => ({ ...e, w: 1 }));
    const r = rates(own, p, model.answerAt);
    console.log(`  ${set.padEnd(28)} ${pct(r.answered, r.positives)} (${r.positives}) | ${pct(r.negatives - r.falseAnswers, r.negatives)} (${r.negatives}) | ${pct(r.answered + r.negatives - r.falseAnswers, r.positives + r.negatives)}`);
  }
  if (values.write) {
    const file = path.join(REPO_ROOT, 'core/grading/decision-coefficients.ts');
    writeFileSync(
      file,
      `import type { FittedDecision } from './fitted-decision';\n\n` +
        `/*\n * Written by bench/grading/fit-decision.ts (do not edit by hand): logistic regression of "the evidence answers" on the\n` +
        ` * grading signals of the calibration splits named in fittedOn, whose rows hash to fittedOn.sha256.\n */\n` +
        `export const FITTED_DECISION: FittedDecision = ${JSON.stringify(model, null, 2)};\n`,
    );
    console.log(`\nwrote ${path.relative(REPO_ROOT, file)}`);
  }
}

function r6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

if (require.main === module) main();
