import type { FieldChange, RankMove, RunComparison } from '../../core/schemas/run-comparison';

/*
 * `ragtime trace --diff A B` (issue 16): what changed from run A to run B, one block per kind of change, only the
 * blocks that hold one. Timings come last: two runs never take the same milliseconds, so they alone do not count as
 * a change.
 */

const show = (value: FieldChange['a']): string => (value === null ? '—' : typeof value === 'string' ? value : String(value));
const quoted = (text: string | null): string => (text === null ? '—' : `"${text}"`);
const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));
const ms = (n: number | null): string => (n === null ? '—' : `${Math.round(n)} ms`);

function moveText(move: RankMove): string {
  if (move.rankA === null) return `${move.chunk_id} new at ${move.rankB}`;
  if (move.rankB === null) return `${move.chunk_id} gone (was ${move.rankA})`;
  return `${move.chunk_id} ${move.rankA}→${move.rankB} (${signed(move.delta ?? 0)})`;
}

function header(comparison: RunComparison): string[] {
  const { a, b } = comparison;
  return [
    `DIFF  ${a.workflowId}  →  ${b.workflowId}`,
    comparison.sameQuestion ? `  question  ${quoted(a.question)} (both)` : `  question  a ${quoted(a.question)}\n            b ${quoted(b.question)}`,
    `  outcome   ${a.status} ${a.route ?? '-'}  →  ${b.status} ${b.route ?? '-'}`,
    ...(comparison.routeChanged ? [`  path a    ${a.path.join(' → ')}`, `  path b    ${b.path.join(' → ')}`] : [`  path      ${a.path.join(' → ')} (both)`]),
  ];
}

export function renderRunComparison(comparison: RunComparison): string {
  const lines = header(comparison);
  const width = Math.max(0, ...comparison.changes.map((change) => change.field.length));
  if (comparison.changes.length > 0) {
    lines.push('  changes');
    for (const change of comparison.changes) lines.push(`    ${change.field.padEnd(width)}  ${show(change.a)} → ${show(change.b)}`);
  }
  if (comparison.grades.length > 0) {
    lines.push('  grades');
    for (const grade of comparison.grades) {
      lines.push(`    ${grade.position}  ${grade.changes.map((change) => `${change.field} ${show(change.a)} → ${show(change.b)}`).join('; ')}`);
    }
  }
  const { entered, left, moved } = comparison.evidence;
  if (entered.length + left.length + moved.length > 0) {
    lines.push('  evidence');
    for (const ref of entered) lines.push(`    + ${ref.key}${ref.filename ? ` (${ref.filename})` : ''} at ${ref.rankB}`);
    for (const ref of left) lines.push(`    - ${ref.key}${ref.filename ? ` (${ref.filename})` : ''} was ${ref.rankA}`);
    for (const ref of moved) lines.push(`    ~ ${ref.key} ${ref.rankA} → ${ref.rankB}`);
  }
  if (comparison.ranks.length > 0) {
    lines.push('  ranks');
    for (const movement of comparison.ranks) lines.push(`    ${movement.retrieval} ${movement.leg}: ${movement.moves.map(moveText).join(', ')}`);
  }
  if (comparison.timings.length > 0) {
    lines.push('  timings');
    const typeWidth = Math.max(...comparison.timings.map((row) => row.type.length));
    for (const row of comparison.timings) {
      const counts = row.countA === row.countB ? '' : ` (${row.countA} → ${row.countB} calls)`;
      lines.push(`    ${row.type.padEnd(typeWidth)}  ${ms(row.aMs)} → ${ms(row.bMs)}${row.deltaMs === null ? '' : ` (${signed(Math.round(row.deltaMs))} ms)`}${counts}`);
    }
  }
  if (!comparison.changed) lines.push('  no change in route, outcome, grades, evidence or ranks');
  return lines.join('\n');
}
