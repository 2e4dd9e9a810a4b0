import type { RunRow } from '../../core/schemas/run-row';

/** GET /api/runs: the tenant's runs, newest first (core/schemas/run-row.ts). */
export type RunListView = { runs: RunRow[] };
export type { RunRow };

export const isActive = (row: RunRow) => row.status === 'running';
