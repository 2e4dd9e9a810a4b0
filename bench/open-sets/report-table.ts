import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { QuestionResult } from '../../core/eval/evaluate-question';
import type { EvalReport } from '../../core/eval/report';
import { ATTRIBUTION_LAYERS } from '../../core/eval/attribution';

/*
 * The issue-26 measures of `ragtime eval` reports, as Markdown table rows (docs/EVALUATION.md): per report and per
 * question kind (the id's last part: -en/-zh for the Debian FAQ, -title/-id for CVE questions, faq otherwise; the
 * Python-compatibility questions of security-reports: release named / release left open),
 * the gold document in the run's evidence, the routes, the gold fact in the answer, and the layer of each miss.
 *
 *   npx tsx bench/open-sets/report-table.ts .data/eval/debian-faq-heldout/report.json [… more reports] [--misses]
 */

const pct = (part: number, whole: number) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)} %`);

export function kindOf(id: string): string {
  if (id.startsWith('secrep-python-any-')) return 'release left open';
  if (id.startsWith('secrep-python-')) return 'release named';
  const suffix = /-(en|zh|title|id)$/.exec(id)?.[1];
  return suffix ?? 'faq';
}

/** Questions with an expected route (ask back): how many got it, and how many were asked back at all. */
function askBack(rs: readonly QuestionResult[]): string {
  const expecting = rs.filter((r) => r.expected_route !== null);
  if (expecting.length === 0) return '–';
  const askedBack = expecting.filter((r) => r.route === 'scope_select' || r.route === 'clarify').length;
  return `${expecting.filter((r) => r.route_correct).length}/${expecting.length} (asked back ${askedBack})`;
}

function row(label: string, rs: readonly QuestionResult[]): string {
  // Questions with an expected route are counted in route accuracy and in the last column, not as answerable.
  const answerable = rs.filter((r) => r.answerable && r.expected_route === null);
  const unanswerable = rs.filter((r) => !r.answerable && r.expected_route === null);
  const withGold = answerable.filter((r) => r.answer_contains_gold !== null);
  const layers = ATTRIBUTION_LAYERS.map((layer) => [layer, rs.filter((r) => r.attribution?.layer === layer).length] as const)
    .filter(([, n]) => n > 0)
    .map(([layer, n]) => `${layer} ${n}`)
    .join(', ');
  return `| ${label} | ${answerable.length}/${unanswerable.length} | ${pct(answerable.filter((r) => r.gold_retrieved).length, answerable.length)} | ${pct(rs.filter((r) => r.route_correct).length, rs.length)} | ${pct(answerable.filter((r) => r.route === 'answer').length, answerable.length)} | ${pct(unanswerable.filter((r) => r.route === 'no_knowledge' || r.route === 'clarify').length, unanswerable.length)} | ${pct(withGold.filter((r) => r.answer_contains_gold).length, withGold.length)} | ${layers || '–'} | ${askBack(rs)} |`;
}

function main(): void {
  const { values, positionals } = parseArgs({ options: { misses: { type: 'boolean', default: false } }, allowPositionals: true });
  console.log('| set / kind | answerable / unanswerable | gold in evidence | route accuracy | answerable → answer | unanswerable → not answered | answer holds gold fact | lost at (layer: questions) | expected route met (ask-back questions) |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const file of positionals) {
    const report = JSON.parse(readFileSync(file, 'utf8')) as EvalReport;
    console.log(row(`**${report.set}**`, report.questions));
    const kinds = [...new Set(report.questions.map((q) => kindOf(q.id)))].sort();
    if (kinds.length > 1) for (const kind of kinds) console.log(row(`  ${kind}`, report.questions.filter((q) => kindOf(q.id) === kind)));
    const s = report.summary.retrieval;
    console.error(`${report.set}: hit@5 dense ${pct(s.dense.hit5 * 1000, 1000)}, bm25 ${pct(s.bm25.hit5 * 1000, 1000)}, fused ${pct(s.fused.hit5 * 1000, 1000)}, final ${pct(s.final.hit5 * 1000, 1000)}; hit@1 final ${pct(s.final.hit1 * 1000, 1000)}`);
    if (values.misses) {
      for (const q of report.questions.filter((r) => r.attribution)) {
        console.error(`  ${q.id} [${q.attribution!.layer}] route ${q.route} ranks d${q.ranks.dense ?? '-'} b${q.ranks.bm25 ?? '-'} f${q.ranks.fused ?? '-'} e${q.ranks.final ?? '-'}: ${q.question.slice(0, 90)} — ${q.attribution!.detail.slice(0, 120)}`);
      }
    }
  }
}

main();
