import { performance } from 'node:perf_hooks';
import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { createMeaningReader } from '../../activities/adapters/meaning-reader';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import { selectChatModels } from '../../activities/adapters/select-chat-models';
import type { ChatModels, ModelProbe } from '../../activities/ports';
import type { RagConfig } from '../../core/config';
import type { DoctorCheck } from '../../core/schemas/doctor';
import type { ModelPlan } from '../../core/schemas/model-call';
import { elapsedMs, withTimeout } from './check-runner';
import { oneLine, reasonOf } from './failure-text';

export type ModelCheckTimes = {
  /** The whole probe: one tiny call per distinct model, each maybe down the output-mode ladder. */
  probeTimeoutMs: number;
  /** One HTTP request of it (the adapter's own timeout). */
  requestTimeoutMs: number;
};

const targetOf = (plan: Pick<ModelPlan, 'model' | 'endpoint'>) => `${plan.model} @ ${plan.endpoint}`;

const probeCheck = (probe: ModelProbe): DoctorCheck => ({ kind: 'model', target: targetOf(probe.plan), ok: probe.ok, detail: probe.detail, ms: Math.max(0, Math.round(probe.ms)), plan: probe.plan });

/** Why the offline policy provider runs: MODEL_PROVIDER says so, or auto found no OpenAI settings. */
function offlineCheck(config: Pick<RagConfig, 'models'>, models: ChatModels): DoctorCheck {
  const why =
    config.models.provider === 'offline'
      ? 'MODEL_PROVIDER=offline'
      : 'MODEL_PROVIDER unset, and OPENAI_API_KEY, FAST_MODEL and GRADE_MODEL are not all set';
  return { kind: 'model', target: models.describe, ok: true, detail: `the offline policy provider calls no chat model; it reads meaning with the embedding model (${why}; docs/offline-policy.md)`, ms: 0 };
}

/**
 * The chat models the worker would build from `config` (activities/adapters/select-chat-models.ts): each distinct
 * model answers one tiny structured call through the provider's probe, and its check carries the plan it ends on
 * (the output mode and temperature its calls will use, and why). A provider without a probe reports its plans, or
 * that it cannot be checked; the offline policy provider calls no model and says so.
 */
export async function modelChecks(config: Pick<RagConfig, 'models' | 'telemetry' | 'embeddings'>, times: ModelCheckTimes): Promise<DoctorCheck[]> {
  const started = performance.now();
  let chosen: ReturnType<typeof selectChatModels>;
  try {
    // The offline provider as a worker builds it: reading meaning with the configured embeddings (nothing is embedded here).
    const offline = () => createOfflineChatModels({ meaning: createMeaningReader(createOpenAiEmbedder(config.embeddings)) });
    chosen = selectChatModels(config, { offline, openai: { timeoutMs: times.requestTimeoutMs, maxRetries: 0 } });
  } catch (error) {
    return [{ kind: 'model', target: config.models.baseUrl ?? 'OPENAI_BASE_URL', ok: false, detail: `cannot build the chat models: ${oneLine(reasonOf(error))}`, ms: elapsedMs(started) }];
  }
  if (chosen.provider === 'offline') return [offlineCheck(config, chosen.models)];
  return checksOf(chosen.models, times.probeTimeoutMs);
}

/** The checks of a provider's models: its probes, else its plans, else one line saying it cannot be probed. */
export async function checksOf(models: ChatModels, probeTimeoutMs: number): Promise<DoctorCheck[]> {
  const started = performance.now();
  const plans = models.plans?.() ?? [];
  if (!models.probe) {
    if (plans.length === 0) return [{ kind: 'model', target: models.describe, ok: true, detail: 'not probed: this provider has no probe', ms: 0 }];
    return plans.map((plan) => ({ kind: 'model', target: targetOf(plan), ok: true, detail: 'not probed: this provider has no probe', ms: 0, plan }));
  }
  const probe = models.probe.bind(models);
  try {
    const probes = await withTimeout(probeTimeoutMs, () => probe());
    const probed = new Set(probes.map((one) => targetOf(one.plan)));
    // Plans the probe did not cover (it probes each distinct model once): reported as planned, not probed.
    const rest = plans.filter((plan) => !probed.has(targetOf(plan)));
    return [...probes.map(probeCheck), ...rest.map((plan) => ({ kind: 'model' as const, target: targetOf(plan), ok: true, detail: 'not probed', ms: 0, plan }))];
  } catch (error) {
    const detail = `the probe failed (${oneLine(reasonOf(error))}): check OPENAI_BASE_URL, OPENAI_API_KEY and the model variables`;
    if (plans.length === 0) return [{ kind: 'model', target: models.describe, ok: false, detail, ms: elapsedMs(started) }];
    return plans.map((plan) => ({ kind: 'model', target: targetOf(plan), ok: false, detail, ms: elapsedMs(started), plan }));
  }
}
