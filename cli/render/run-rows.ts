import type { RunRow } from '../../core/schemas/run-row';

/** The columns of `ragtime runs`, with their header (issue 33 §6: the list printed none). */
const COLUMNS: Array<[header: string, cell: (row: RunRow) => string]> = [
  ['STARTED', (row) => row.started],
  ['STATUS', (row) => row.status ?? '-'],
  ['ROUTE', (row) => row.route ?? '-'],
  ['SESSION', (row) => row.session ?? '-'],
  ['RUN', (row) => row.workflowId],
];

/** `ragtime runs` as a table: a header line, then a line per run, each column as wide as its widest cell. */
export function renderRunRows(rows: readonly RunRow[]): string {
  const cells = [COLUMNS.map(([header]) => header), ...rows.map((row) => COLUMNS.map(([, cell]) => cell(row)))];
  const widths = COLUMNS.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  return cells.map((line) => line.map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}
