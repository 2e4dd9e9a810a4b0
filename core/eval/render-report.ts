import type { Comparison, EvalReport } from './report';
import { expectedClass, isRight } from './report';

/*
 * report.md and report.html of an evaluation (pure). The HTML is one self-contained file: inline CSS and an inline
 * SVG funnel, no script, no font or image from anywhere — it opens offline and can be attached to a ticket.
 */

const pct = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);
const ROUTES = ['answer', 'clarify', 'scope_select', 'no_knowledge', 'rewrite', 'failed', 'none'];

function confusionRows(report: EvalReport): string[][] {
  const { confusion } = report.summary.routes;
  const columns = ROUTES.filter((route) => Object.values(confusion).some((row) => (row[route] ?? 0) > 0));
  return [['should get \\ got', ...columns], ...Object.entries(confusion).map(([expected, row]) => [expected, ...columns.map((c) => String(row[c] ?? 0))])];
}

const mdTable = (rows: string[][]): string =>
  [`| ${rows[0]!.join(' | ')} |`, `| ${rows[0]!.map(() => '---').join(' | ')} |`, ...rows.slice(1).map((row) => `| ${row.join(' | ')} |`)].join('\n');

const escapeMd = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The follow-ups' table (issue 25 §3): hit@5 with the session's condensation and with the question alone; none without dialogues. */
function followUpLines(report: EvalReport): string[][][] {
  const f = report.summary.follow_ups;
  if (!f) return [];
  return [[
    ['follow-ups', 'rewritten from the session', 'hit@5 with the turns (condensed)', 'hit@5 asked alone'],
    [String(f.n), pct(f.rewritten), pct(f.hit5_with), pct(f.hit5_without)],
  ]];
}

/** Issue 44 §5: "2 (1 / 1 / 0)"; reports written before intents were counted say "-". */
const withoutRetrieval = (s: EvalReport['summary']): string => {
  const intents = s.intents as EvalReport['summary']['intents'] | undefined;
  if (!intents) return '-';
  const { greeting, thanks, conversation_meta } = intents.counts;
  return `${intents.without_retrieval} (${greeting} / ${thanks} / ${conversation_meta})`;
};

export function renderMarkdown(report: EvalReport, comparison?: Comparison): string {
  const s = report.summary;
  const misses = report.questions.filter((r) => !isRight(r));
  const lines = [
    `# Evaluation: ${report.set}`,
    '',
    `${s.n} questions (${s.answerable} answerable, ${s.unanswerable} not, ${s.n - s.answerable - s.unanswerable} with an expected route) in knowledge base \`${report.kb}\`; provider ${report.provider}; ${report.created_at}.`,
    '',
    '## Routes',
    '',
    mdTable([
      ['measure', 'value'],
      ['route accuracy', pct(s.routes.accuracy)],
      ['answerable → answer', pct(s.routes.answerable_answered)],
      ['unanswerable → not answered (no_knowledge / clarify)', pct(s.routes.unanswerable_not_answered)],
      ['→ scope_select (counted apart)', pct(s.routes.scope_select)],
    ]),
    '',
    mdTable(confusionRows(report)),
    '',
    '## Retrieval (answerable questions with gold documents)',
    '',
    mdTable([
      ['list', 'hit@1', 'hit@5', 'MRR@10'],
      ...(['dense', 'bm25', 'fused', 'final'] as const).map((list) => [list, pct(s.retrieval[list].hit1), pct(s.retrieval[list].hit5), pct(s.retrieval[list].mrr10)]),
    ]),
    '',
    ...followUpLines(report).flatMap((rows) => ['## Follow-up questions (dialogues: questions with turns)', '', mdTable(rows), '']),
    '## Answers and cost',
    '',
    mdTable([
      ['measure', 'value'],
      ['answered', String(s.answers.answered)],
      ['answer holds a gold span', pct(s.answers.contains_gold)],
      ['citations verified', pct(s.answers.verified)],
      ['model calls (mean per question)', s.model_calls.mean.toFixed(2)],
      ['latency p50 / p95', `${s.latency_ms.p50} / ${s.latency_ms.p95} ms`],
      ['answered without retrieval (greeting / thanks / conversation)', withoutRetrieval(s)],
    ]),
    '',
    '## Where questions were lost (first layer)',
    '',
    mdTable([['stage', 'answerable questions'], ...s.funnel.map((f) => [f.stage, String(f.count)])]),
    '',
    mdTable([['layer', 'questions'], ...Object.entries(s.attribution).filter(([, n]) => n > 0).map(([layer, n]) => [layer, String(n)])]),
    '',
    `## Misses (${misses.length})`,
    '',
    misses.length === 0
      ? '(none)'
      : mdTable([
          ['id', 'question', 'should get', 'got', 'layer', 'detail'],
          ...misses.map((r) => [r.id, escapeMd(r.question), expectedClass(r), r.route ?? r.status, r.attribution?.layer ?? '-', escapeMd(r.attribution?.detail ?? '')]),
        ]),
  ];
  if (comparison) {
    lines.push(
      '',
      `## Compared with the previous report: ${comparison.regressions.length} regression(s), ${comparison.improvements.length} improvement(s)`,
      '',
      ...comparison.regressions.map((r) => `- regression ${r.id}: ${r.before ?? '-'} → ${r.after ?? '-'} (${r.layer ?? '-'})`),
      ...comparison.improvements.map((r) => `- improvement ${r.id}: ${r.before ?? '-'} → ${r.after ?? '-'}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function funnelSvg(report: EvalReport): string {
  const { funnel } = report.summary;
  const max = Math.max(1, ...funnel.map((f) => f.count));
  const row = 34;
  const bars = funnel
    .map((f, i) => {
      const width = Math.round((560 * f.count) / max);
      const y = i * row;
      return (
        `<rect x="230" y="${y + 6}" width="${width}" height="22" rx="3" fill="${i === funnel.length - 1 ? '#2f855a' : '#3b6fb6'}"/>` +
        `<text x="222" y="${y + 22}" text-anchor="end">${escapeHtml(f.stage)}</text>` +
        `<text x="${236 + width}" y="${y + 22}">${f.count}</text>`
      );
    })
    .join('');
  return `<svg role="img" aria-label="questions kept at each stage" viewBox="0 0 860 ${funnel.length * row}" width="860" height="${funnel.length * row}">${bars}</svg>`;
}

/** The self-contained HTML report; `runUrl` links a workflow id to its page in the Temporal UI. */
export function renderHtml(report: EvalReport, runUrl: (workflowId: string) => string, comparison?: Comparison): string {
  const s = report.summary;
  const misses = report.questions.filter((r) => !isRight(r));
  const table = (rows: string[][], raw = false) =>
    `<table><thead><tr>${rows[0]!.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>${rows
      .slice(1)
      .map((row) => `<tr>${row.map((c) => `<td>${raw ? c : escapeHtml(c)}</td>`).join('')}</tr>`)
      .join('')}</tbody></table>`;
  const missRows = [
    ['id', 'question', 'should get', 'got', 'layer', 'detail'],
    ...misses.map((r) => [
      `<a href="${escapeHtml(runUrl(r.workflow_id))}">${escapeHtml(r.id)}</a>`,
      escapeHtml(r.question),
      escapeHtml(expectedClass(r)),
      escapeHtml(r.route ?? r.status),
      escapeHtml(r.attribution?.layer ?? '-'),
      escapeHtml(r.attribution?.detail ?? ''),
    ]),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>ragtime evaluation: ${escapeHtml(report.set)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;margin:2rem;color:#1a202c;max-width:1100px}
table{border-collapse:collapse;margin:0.5rem 0 1.5rem}th,td{border:1px solid #cbd5e0;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#edf2f7}svg text{font-size:13px;fill:#1a202c}.kpi{display:inline-block;margin-right:2rem}.kpi b{font-size:1.6rem;display:block}
</style></head><body>
<h1>Evaluation: ${escapeHtml(report.set)}</h1>
<p>${s.n} questions in knowledge base <code>${escapeHtml(report.kb)}</code>; provider ${escapeHtml(report.provider)}; ${escapeHtml(report.created_at)}.</p>
<p><span class="kpi"><b>${pct(s.routes.accuracy)}</b>route accuracy</span><span class="kpi"><b>${pct(s.routes.answerable_answered)}</b>answerable answered</span><span class="kpi"><b>${pct(s.routes.unanswerable_not_answered)}</b>unanswerable not answered</span><span class="kpi"><b>${pct(s.answers.contains_gold)}</b>answers with a gold span</span></p>
<h2>Where answerable questions were lost</h2>
${funnelSvg(report)}
${table([['layer', 'questions'], ...Object.entries(s.attribution).filter(([, n]) => n > 0).map(([layer, n]) => [layer, String(n)])])}
<h2>Routes</h2>
${table(confusionRows(report))}
<h2>Retrieval</h2>
${table([['list', 'hit@1', 'hit@5', 'MRR@10'], ...(['dense', 'bm25', 'fused', 'final'] as const).map((list) => [list, pct(s.retrieval[list].hit1), pct(s.retrieval[list].hit5), pct(s.retrieval[list].mrr10)])])}
${followUpLines(report).map((rows) => `<h2>Follow-up questions</h2>${table(rows)}`).join('')}
<h2>Answers and cost</h2>
${table([['measure', 'value'], ['answered', String(s.answers.answered)], ['answer holds a gold span', pct(s.answers.contains_gold)], ['citations verified', pct(s.answers.verified)], ['model calls per question', s.model_calls.mean.toFixed(2)], ['latency p50 / p95', `${s.latency_ms.p50} / ${s.latency_ms.p95} ms`], ['answered without retrieval', withoutRetrieval(s)]])}
${comparison ? `<h2>Compared with the previous report</h2><p>${comparison.regressions.length} regression(s), ${comparison.improvements.length} improvement(s)</p>${table([['question', 'before', 'after', 'change'], ...comparison.regressions.map((r) => [r.id, r.before ?? '-', r.after ?? '-', 'regression']), ...comparison.improvements.map((r) => [r.id, r.before ?? '-', r.after ?? '-', 'improvement'])])}` : ''}
<h2>Misses (${misses.length})</h2>
${misses.length === 0 ? '<p>(none)</p>' : table(missRows, true)}
</body></html>
`;
}
