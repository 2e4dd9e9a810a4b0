import { livePollers, mixedProviderRefusal, otherProviderPollers } from '../../../core/settings/task-queue-pollers';
import { workerKbOf, workerProviderOf } from '../../../core/settings/worker-identity';

/*
 * Issue 43 §5: a MODEL_PROVIDER=local worker started beside the demo's offline worker shared its task queue, and the
 * "local" question was answered by the offline rules without a word. A worker now names its provider in its identity
 * and refuses to join a queue where a live worker of another provider polls.
 */

const NOW = 1_800_000_000_000;
const seen = (identity: string, agoMs: number | null) => ({ identity, lastAccessMs: agoMs === null ? null : NOW - agoMs });
const where = { provider: 'local', taskQueue: 'ragtime', allowMixed: false };

test('an identity names its provider and its default knowledge base', () => {
  expect(workerProviderOf('4611@host/provider=offline/kb=docs')).toBe('offline');
  expect(workerKbOf('4611@host/provider=offline/kb=docs')).toBe('docs');
  // A worker of an earlier ragtime names no provider.
  expect(workerProviderOf('4611@host/kb=docs')).toBeNull();
});

test('live pollers: seen within 70 s (a 60 s long poll), or when Temporal does not say', () => {
  expect(livePollers([seen('a', 70_000), seen('b', 70_001), seen('c', null)], NOW).map((p) => p.identity)).toEqual(['a', 'c']);
});

test('a live offline worker on the queue: the local worker refuses, naming it and the way out', () => {
  const others = otherProviderPollers([seen('11@host/provider=offline/kb=docs', 3_000)], 'local', NOW);
  expect(mixedProviderRefusal(others, where)).toMatchInlineSnapshot(
    `"task queue "ragtime" is polled by a worker of another model provider: 11@host/provider=offline/kb=docs (provider offline); this worker's provider is local. Questions would go to either, and the answer would not say which: stop that worker (\`scripts/services.sh down worker\`), or give this one its own queue (TEMPORAL_TASK_QUEUE=…, and the same for the ask), or pass --allow-mixed-providers to share it anyway"`,
  );
});

test('no refusal: the same provider, a stopped worker of another, an identity without a provider, or --allow-mixed-providers', () => {
  const pollers = [seen('11@host/provider=local/kb=docs', 1_000), seen('9@host/provider=offline/kb=docs', 5 * 60_000), seen('8@host/kb=docs', 1_000)];
  expect(mixedProviderRefusal(otherProviderPollers(pollers, 'local', NOW), where)).toBeNull();
  const offline = otherProviderPollers([seen('11@host/provider=offline/kb=docs', 1_000)], 'local', NOW);
  expect(mixedProviderRefusal(offline, { ...where, allowMixed: true })).toBeNull();
});
