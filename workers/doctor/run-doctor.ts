import type { RagConfig } from '../../core/config';
import { doctorReportOf, type DoctorCheck, type DoctorReport } from '../../core/schemas/doctor';
import { runCheck } from './check-runner';
import { databaseCheck } from './database-check';
import { embeddingsCheck } from './embeddings-check';
import { milvusCheck } from './milvus-check';
import { modelChecks, type ModelCheckTimes } from './model-checks';
import { rerankCheck } from './rerank-check';
import { scrubSecrets, secretsOf } from './scrub-secrets';
import { describeSettingSource, settingUse, withSettingsMismatches } from './settings-checks';
import { temporalCheck, workerCheck } from './temporal-checks';

export type DoctorTimes = ModelCheckTimes & {
  /** Each service check (Temporal, worker, Milvus, embeddings, database, rerank). */
  serviceTimeoutMs: number;
};

/*
 * A local service answers these calls in milliseconds and a remote one within a second or two, so 5 s tells a dead
 * service from a slow one without keeping `doctor` waiting. A model's probe may step down the output-mode ladder
 * (up to four rungs, and a temperature retry), and a reasoning model may think for seconds even on a tiny reply:
 * 15 s a request and 30 s for all of them.
 */
export const DOCTOR_TIMES: DoctorTimes = { serviceTimeoutMs: 5_000, requestTimeoutMs: 15_000, probeTimeoutMs: 30_000 };

/**
 * `ragtime doctor` and GET /api/doctor (issue 24 §3): every configured service and model endpoint, one tiny call
 * each, all at once, each under its own deadline, so a dead service is one failed line and never a hang. No
 * credential appears in the report: targets are shown without them, and every configured secret is masked.
 */
export async function runDoctor(config: RagConfig, times: DoctorTimes = DOCTOR_TIMES): Promise<DoctorReport> {
  const timeout = times.serviceTimeoutMs;
  const services = [
    temporalCheck(config.temporal, timeout),
    workerCheck(config.temporal, timeout, { kb: config.milvus.collection, source: describeSettingSource(settingUse(config, 'RAGTIME_KB')) }),
    milvusCheck(config.milvus, timeout),
    embeddingsCheck(config.embeddings, timeout),
    databaseCheck(config.database, timeout),
    rerankCheck(config.rerank, timeout),
  ];
  const [serviceChecks, models] = await Promise.all([Promise.all(services.map(runCheck)), modelChecks(config, times)]);
  const checks: DoctorCheck[] = [...withSettingsMismatches(serviceChecks, config), ...models];
  // With the settings used and where each came from (issue 33 §1), printed before the checks.
  return scrubSecrets(doctorReportOf(checks, config.settings), secretsOf(config));
}
