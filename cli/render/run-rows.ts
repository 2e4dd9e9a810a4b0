import type { RunRow } from '../../core/schemas/run-row';
import { textTable } from './text-table';

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
  return textTable(cells);
}
