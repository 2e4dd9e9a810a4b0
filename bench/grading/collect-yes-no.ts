import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createModelCapabilities } from '../../activities/adapters/model-capabilities';
import { createOpenAiYesNo } from '../../activities/adapters/openai-yes-no';
import { answerProbability } from '../../core/grading/fitted-decision';
import { FITTED_DECISION } from '../../core/grading/decision-coefficients';
import { LOCAL_MODEL } from '../../core/local-model';
import { signalsOf, type SignalRow } from './collect-signals';

/*
 * The grade by probability's calibration rows (issue 43 §1): for calibration questions of the signal files
 * (bench/grading/collect-signals.ts), the offline decision's P(answers) and the local model's P(yes) for each of the
 * first candidates, one JSON line each, for bench/grading/fit-probability.ts. A balanced sample per set: the first
 * `--per-class` questions whose evidence answers and as many whose evidence does not, in file order. Appends, and
 * skips rows already in --out, so an interrupted run resumes.
 *
 *   npx tsx bench/grading/collect-yes-no.ts --signals .data/grading/base/<set>.jsonl [--signals …] --out FILE
 *     [--per-class 3] [--candidates 2] [--url http://127.0.0.1:8766/v1]
 */

export type YesNoRow = { set: string; id: string; label: 0 | 1; offline: number; yes: Array<number | null>; ms: number };

/** Label: the evidence answers when the question is answerable and its gold document was retrieved (fit-decision.ts). */
export const labelOf = (row: SignalRow): 0 | 1 => (row.answerable && row.gold_in_evidence ? 1 : 0);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { signals: { type: 'string', multiple: true }, out: { type: 'string' }, 'per-class': { type: 'string', default: '3' }, candidates: { type: 'string', default: '2' }, url: { type: 'string', default: `http://127.0.0.1:${LOCAL_MODEL.port}/v1` } },
    strict: true,
  });
  if (!values.signals?.length || !values.out) throw new Error('usage: collect-yes-no.ts --signals FILE.jsonl [--signals …] --out FILE.jsonl');
  const perClass = Number(values['per-class']);
  const candidates = Number(values.candidates);
  const done = new Set(existsSync(values.out) ? readFileSync(values.out, 'utf8').trim().split('\n').filter(Boolean).map((line) => { const row = JSON.parse(line) as YesNoRow; return `${row.set}\u0000${row.id}`; }) : []);
  const reader = createOpenAiYesNo({ apiKey: 'local', baseUrl: values.url, model: LOCAL_MODEL.id, timeoutMs: 600_000, capabilities: createModelCapabilities({ outputMode: 'auto', temperature: undefined }) });
  const samples = values.signals.map((file) => {
    const rows = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SignalRow).filter((row) => !row.expected_route);
    const [yes, no] = [1, 0].map((label) => rows.filter((row) => labelOf(row) === label).slice(0, perClass));
    return (yes ?? []).flatMap((row, i) => [row, ...(no?.[i] ? [no[i]] : [])]);
  });
  // Round-robin over the sets, one question of each class in turn: a run stopped early is still balanced.
  const longest = Math.max(...samples.map((sample) => sample.length));
  const order = Array.from({ length: longest }, (_, i) => samples.flatMap((sample) => (sample[i] ? [sample[i]] : []))).flat();
  for (const row of order) {
    if (done.has(`${row.set}\u0000${row.id}`)) continue;
    const started = performance.now();
    const yes: Array<number | null> = [];
    for (let index = 0; index < Math.min(candidates, row.docs.length); index += 1) yes.push(await reader.yesProbability(row.question, row.docs, index));
    const out: YesNoRow = { set: row.set, id: row.id, label: labelOf(row), offline: Math.round(answerProbability(signalsOf(row), FITTED_DECISION) * 1e4) / 1e4, yes, ms: Math.round(performance.now() - started) };
    appendFileSync(values.out, `${JSON.stringify(out)}\n`);
    console.error(`${row.set} ${row.id}: label ${out.label} offline ${out.offline.toFixed(2)} yes ${yes.map((p) => (p === null ? '-' : p.toFixed(2))).join(' ')} (${out.ms} ms)`);
  }
}

if (require.main === module) main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
