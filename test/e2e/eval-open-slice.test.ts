/**
 * Issue 26: the CI guard of the open evaluation sets. `ragtime eval` runs the committed slice
 * test/fixtures/golden/open-slice (excerpts of the Debian FAQ zh/en and of Django's release notes, built by
 * `npx tsx bench/build-open-sets.ts --slice …`) through the real services and a worker of its own (offline provider,
 * own task queue and collection), and the report must stay at or above the floors measured when the slice was made
 * (docs/EVALUATION.md, "The committed slice"). A change of chunking, tokenization, retrieval or the offline grader
 * that loses evidence or routes on this slice fails here.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EvalReport } from '../../core/eval/report';
import { runRagtime } from '../support/cli-run';
import { REPO_ROOT } from '../support/services';
import { assertServicesReachable, serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail } from '../support/worker-process';

const RUN = randomUUID().slice(0, 8);
const KB = `e2e_open_slice_${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-open-slice-'));
const env: NodeJS.ProcessEnv = { ...serviceEnvironment({ collection: KB, dataDir }), TEMPORAL_TASK_QUEUE: `e2e-open-slice-${RUN}`, MODEL_PROVIDER: 'offline' };
const SLICE = path.join(REPO_ROOT, 'test', 'fixtures', 'golden', 'open-slice');

let worker: ChildProcess | undefined;

beforeAll(async () => {
  await assertServicesReachable();
  worker = (await startWorkerProcess(env)).child;
}, 60_000);

afterAll(async () => {
  await runRagtime(['kb', 'drop', KB, '--yes'], env);
  if (worker) await stopWorkerProcess(worker);
});

test('the open-set slice keeps its floors: evidence, routes per class, gold facts in answers, citations', async () => {
  const out = path.join(dataDir, 'eval');
  const run = await runRagtime(['eval', SLICE, '--kb', KB, '--out', out, '--json'], env, 110_000);
  if (run.code !== 0) throw new Error(`ragtime eval exited ${run.code}:\n${tail(run.stdout)}\n${tail(run.stderr)}`);
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as EvalReport;
  const s = report.summary;
  const answerable = report.questions.filter((q) => q.answerable);
  const evidence = answerable.filter((q) => q.gold_retrieved).length / answerable.length;
  // Floors: the values measured when the slice was built (docs/EVALUATION.md), not the targets.
  expect(s.n).toBe(22);
  expect(evidence).toBeGreaterThanOrEqual(FLOORS.evidence);
  expect(s.routes.answerable_answered).toBeGreaterThanOrEqual(FLOORS.answerableAnswered);
  expect(s.routes.unanswerable_not_answered).toBeGreaterThanOrEqual(FLOORS.unanswerableNotAnswered);
  // The one answered question with a gold fact (a release number) misses it: the note's title is not in the quoted
  // CVE section (docs/EVALUATION.md, "answer" layer). Not a floor; shown so that a fix makes it visible here.
  expect(s.answers.contains_gold).not.toBeUndefined();
  expect(s.answers.verified).toBe(1);
  expect(s.attribution.run_failed).toBe(0);
}, 150_000);

/**
 * Measured on 2026-12-05 with offline-policy v3 (meaning-v1, issue 42; default retrieval settings, contextual-v1
 * leaves): gold in evidence 12/12, answerable answered 11/12 (debfaq-appdefaults-zh → clarify: grading), unanswerable
 * not answered 10/10. v2 measured 10/12 and 9/10 (debfaq-pkgprogs-en → no_knowledge, django-CVE-2025-32873-id →
 * clarify; debfaq-testing-en answered from its neighbours). The offline path is deterministic for given vectors, so these are the values, not
 * margins.
 */
const FLOORS = { evidence: 1, answerableAnswered: 11 / 12, unanswerableNotAnswered: 10 / 10 };
