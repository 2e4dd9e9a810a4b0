import { readFileSync } from 'node:fs';
import { SIGNAL_NAMES } from '../../core/grading/signals';
import { signalsOf, type SignalRow } from './collect-signals';

/*
 * How well each grading signal alone separates evidence that answers from evidence that does not (ROC AUC, 0.5 is
 * chance), per set: which signals carry a set, before any fit (issue 42 §3).
 *
 *   npx tsx bench/grading/signal-auc.ts .data/grading/<run>/<set>.jsonl …
 */

function auc(pos: number[], neg: number[]): number {
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return pos.length && neg.length ? wins / (pos.length * neg.length) : Number.NaN;
}

for (const file of process.argv.slice(2)) {
  const rows = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SignalRow).filter((row) => !row.expected_route);
  const signals = rows.map(signalsOf);
  const label = rows.map((row) => row.answerable && row.gold_in_evidence);
  const cells = SIGNAL_NAMES.map((name) => {
    const pos = signals.filter((_, i) => label[i]).map((s) => s[name]);
    const neg = signals.filter((_, i) => !label[i]).map((s) => s[name]);
    return `${name}=${auc(pos, neg).toFixed(2)}`;
  });
  console.log(`${rows[0]?.set} (${label.filter(Boolean).length}/${rows.length}): ${cells.join(' ')}`);
}
