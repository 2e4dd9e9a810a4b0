import type { RagConfig } from '../../core/config';
import type { DoctorCheck } from '../../core/schemas/doctor';
import { settingsMismatches, type SettingUse } from '../../core/settings/local-settings';

/** Where a setting came from, for a message: `settings file, RAGTIME_KB=ragtime_demo_kb`, `environment, …`, `default`. */
export function describeSettingSource(use: SettingUse | undefined): string {
  if (use === undefined) return 'default';
  return use.from === null ? use.source : `${use.source}, ${use.from}`;
}

export const settingUse = (config: RagConfig, name: string): SettingUse | undefined => config.settings.used.find((use) => use.name === name);

const SETTING_OF = { temporal: 'TEMPORAL_ADDRESS', milvus: 'MILVUS_ADDRESS', embeddings: 'EMBEDDING_BASE_URL' } as const;

/**
 * Issue 33 §1: a service check fails when this process reaches the service elsewhere than where the data dir's local
 * services were started (its settings file): whatever answers there belongs to another checkout or another setup.
 */
export function withSettingsMismatches(checks: DoctorCheck[], config: RagConfig): DoctorCheck[] {
  const mismatches = settingsMismatches(config.settings, {
    temporal: config.temporal.address,
    milvus: config.milvus.address,
    embeddings: config.embeddings.baseUrl,
  });
  return checks.map((check) => {
    const mismatch = mismatches.find((entry) => entry.kind === check.kind);
    if (mismatch === undefined) return check;
    const source = describeSettingSource(settingUse(config, SETTING_OF[mismatch.kind]));
    const found = check.ok ? `${check.detail}, ` : '';
    return {
      ...check,
      ok: false,
      detail:
        `${found}but this shell uses ${mismatch.configured} (${source}) and the local services of this data dir were started on ` +
        `${mismatch.recorded} (${config.settings.file}): unset ${mismatch.variables} to use them, or export the ports they were started with`,
    };
  });
}
