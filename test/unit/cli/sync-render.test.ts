import { renderPassReport, renderSyncStatus } from '../../../cli/render/sync-status';
import type { SyncPassReport } from '../../../core/sync/sync-io';

/* What `ragtime sync status` prints (issue 46 §2, §4): the settings, schedule, running pass and last report. */

const report: SyncPassReport = {
  source: 'manual',
  kb: 'manual_kb',
  kind: 'git',
  commit: '0123456789abcdef0123456789abcdef01234567',
  status: 'partial',
  added: 1,
  changed: 2,
  removed: 0,
  renamed: 1,
  unchanged: 40,
  failed: [{ path: 'docs/broken.pdf', type: 'CORRUPT_FILE', message: 'broken.pdf: not a readable PDF' }],
  leaves_embedded: 5,
  leaves_reused: 31,
  started_at: '2026-12-05T07:00:00.000Z',
  finished_at: '2026-12-05T07:00:02.500Z',
  duration_ms: 2500,
  workflow_id: 'ragtime-sync-manual-2026-12-05T07:00:00Z',
};

test('a pass report: status, commit, counts, leaves, and each failed file', () => {
  expect(renderPassReport(report)).toMatchInlineSnapshot(`
"partial at 0123456789ab 2026-12-05T07:00:02.500Z (2.5 s): added 1, changed 2, removed 0, renamed 1, unchanged 40, failed 1; leaves embedded 5, kept 31
  failed docs/broken.pdf: CORRUPT_FILE: broken.pdf: not a readable PDF"
`);
});

test('a source with a running pass and a last pass', () => {
  const text = renderSyncStatus({
    source: 'manual',
    scheduleId: 'ragtime-sync-manual',
    settings: { source: 'manual', path: '/srv/manual', kb: 'manual_kb', branch: 'main', include: ['docs/**'], exclude: [] },
    every: '600s',
    paused: true,
    nextPassAt: null,
    running: { workflowId: 'w', progress: { stage: 'ingesting', commit: 'fedcba9876543210', to_ingest: 4, ingested: 1, to_remove: 0, removed: 0, unchanged: 40, failed: 0, current: ['docs/a.md'] } },
    lastPass: { workflowId: report.workflow_id, report, error: null },
  });
  expect(text).toMatchInlineSnapshot(`
"manual: git /srv/manual at branch main → knowledge base manual_kb (include docs/**)
  schedule:  ragtime-sync-manual every 600s, PAUSED
  running:   ingesting at fedcba987654: ingested 1/4, removed 0/0, unchanged 40, failed 0 — now docs/a.md
  last pass: partial at 0123456789ab 2026-12-05T07:00:02.500Z (2.5 s): added 1, changed 2, removed 0, renamed 1, unchanged 40, failed 1; leaves embedded 5, kept 31
    failed docs/broken.pdf: CORRUPT_FILE: broken.pdf: not a readable PDF"
`);
});
