import { z } from 'zod';

/*
 * One configuration for every process (issue 33 §1). `scripts/services.sh up` records in the data dir the ports it
 * started the local services on, the default knowledge base of the worker it started (`make demo`:
 * ragtime_demo_kb) and, once it started the console's API for tenant "demo", that tenant for the CLI's runs
 * (RAGTIME_TENANT=demo, issue 45 §3), in RAGTIME_DATA_DIR/settings.env. Every ragtime process (CLI, worker, serve, mcp, the demo's
 * tour) reads that file through parseConfig, and every script through scripts/env.sh, with one precedence:
 *
 *   the environment  >  the settings file  >  the default
 *
 * A variable of the environment shadows the file's value of the same setting: TEMPORAL_ADDRESS or TEMPORAL_PORT
 * set in the shell wins over the file's TEMPORAL_PORT, MILVUS_COLLECTION over the file's RAGTIME_KB. Addresses are
 * derived from the *_PORT variables as scripts/env.sh derives them (the local services listen on 127.0.0.1).
 * Where nothing is recorded, the spec's default knowledge base (embeddings_collection, spec §1) stays the default.
 */

/** The file's name in RAGTIME_DATA_DIR. */
export const SETTINGS_FILE_NAME = 'settings.env';

/** Where the local services listen (scripts/services.sh binds 127.0.0.1 only). */
const LOCAL_HOST = '127.0.0.1';

/** Addresses of the local services, derived from their ports exactly as scripts/env.sh does. */
export const localAddress = {
  temporal: (port: string | number) => `${LOCAL_HOST}:${port}`,
  milvus: (port: string | number, host = LOCAL_HOST) => `${host}:${port}`,
  embeddings: (port: string | number) => `http://${LOCAL_HOST}:${port}/v1`,
  temporalUi: (port: string | number) => `http://${LOCAL_HOST}:${port}`,
};

/**
 * The variables a settings file may hold, each with the environment variables that shadow it: when the shell sets
 * any of those (not blank), the file's value is not used.
 */
export const RECORDED_VARIABLES = {
  TEMPORAL_PORT: ['TEMPORAL_ADDRESS', 'TEMPORAL_PORT'],
  TEMPORAL_UI_PORT: ['TEMPORAL_UI_URL', 'TEMPORAL_UI_PORT'],
  MILVUS_PORT: ['MILVUS_ADDRESS', 'MILVUS_HOST', 'MILVUS_PORT'],
  EMBEDDINGS_PORT: ['EMBEDDING_BASE_URL', 'EMBEDDINGS_PORT'],
  POSTGRES_PORT: ['POSTGRES_PORT'],
  CODEC_PORT: ['RAGTIME_CODEC_PORT', 'CODEC_PORT'],
  RAGTIME_API_PORT: ['RAGTIME_API_PORT'],
  RAGTIME_KB: ['RAGTIME_KB', 'MILVUS_COLLECTION'],
  // The tenant of the CLI's runs (issue 45 §3): `make demo` records its console's, so that the console shows them.
  RAGTIME_TENANT: ['RAGTIME_TENANT'],
} as const;
export type RecordedVariable = keyof typeof RECORDED_VARIABLES;
const isRecordedVariable = (name: string): name is RecordedVariable => Object.hasOwn(RECORDED_VARIABLES, name);
const PORT_VARIABLES = new Set<string>(Object.keys(RECORDED_VARIABLES).filter((name) => name.endsWith('_PORT')));

export const SettingSource = z.enum(['environment', 'settings file', 'default']);
export type SettingSource = z.infer<typeof SettingSource>;

/** One setting a process used: its value, where it came from, and the variable it was read or derived from. */
export const SettingUse = z.object({
  name: z.string(),
  value: z.string(),
  source: SettingSource,
  /** `TEMPORAL_PORT=17233` when derived from a port; the variable itself when read as it is; null for a default. */
  from: z.string().nullable(),
});
export type SettingUse = z.infer<typeof SettingUse>;

/** What a process read: the settings file (its path, whether it exists, what it records) and the settings used. */
export const LocalSettings = z.object({
  file: z.string(),
  found: z.boolean(),
  recorded: z.partialRecord(z.enum(Object.keys(RECORDED_VARIABLES) as [RecordedVariable, ...RecordedVariable[]]), z.string()),
  used: z.array(SettingUse),
});
export type LocalSettings = z.infer<typeof LocalSettings>;

type Env = Record<string, string | undefined>;
export type Recorded = Partial<Record<RecordedVariable, string>>;

const blank = (value: string | undefined) => value === undefined || value.trim() === '';
const PORT_TEXT = /^\d{1,5}$/;
const isPort = (text: string) => PORT_TEXT.test(text) && Number(text) >= 1 && Number(text) <= 65535;

/** The path of the settings file of a data dir (core/ does no path arithmetic with node:path). */
export const settingsFileOf = (dataDir: string) => `${dataDir.replace(/\/+$/, '')}/${SETTINGS_FILE_NAME}`;

/**
 * Parses a settings file: `NAME=value` lines, `#` comments and blank lines; only the recorded variables. A line
 * that is not one of them is a problem (the file is written by scripts/services.sh, so a stray line is a mistake).
 */
export function parseSettingsFile(text: string, file: string): { recorded: Recorded; problems: string[] } {
  const recorded: Recorded = {};
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    const where = `${file} line ${index + 1}`;
    if (!match) return problems.push(`${where} is not NAME=value: fix it, or remove the file to use the defaults`);
    const [, name = '', value = ''] = match;
    if (!isRecordedVariable(name)) {
      return problems.push(`${where}: ${name} is not a setting the file records (${Object.keys(RECORDED_VARIABLES).join(', ')}): set it in the environment instead`);
    }
    if (PORT_VARIABLES.has(name) && !isPort(value)) return problems.push(`${where}: ${name}=${JSON.stringify(value)} is not a port number (1-65535): fix the line, or remove it`);
    recorded[name] = value;
  });
  return { recorded, problems };
}

/**
 * The environment a process reads: its own variables, plus each recorded value no variable of the environment
 * shadows. parseConfig reads the result; addresses are then derived from the ports (core/config.ts).
 */
export function layerSettings(env: Env, recorded: Recorded): Env {
  const layered: Env = { ...env };
  for (const [name, value] of Object.entries(recorded) as Array<[RecordedVariable, string]>) {
    if (RECORDED_VARIABLES[name].every((shadow) => blank(env[shadow]))) layered[name] = value;
  }
  return layered;
}

/** Where the value of a setting came from: the first variable set in the environment, else the file, else default. */
function sourceOf(env: Env, recorded: Recorded, names: readonly string[], fileName: RecordedVariable | null): Omit<SettingUse, 'name' | 'value'> {
  const set = names.find((name) => !blank(env[name]));
  if (set !== undefined) return { source: 'environment', from: `${set}=${env[set]?.trim()}` };
  const inFile = fileName === null ? undefined : recorded[fileName];
  if (fileName !== null && inFile !== undefined) return { source: 'settings file', from: `${fileName}=${inFile}` };
  return { source: 'default', from: null };
}

/** The values a process ended up with, from its parsed configuration (core/config.ts fills them in). */
export type UsedValues = {
  temporalAddress: string;
  temporalUiUrl: string;
  taskQueue: string;
  milvusAddress: string;
  embeddingsBaseUrl: string;
  defaultKb: string;
  apiPort: number;
  codecPort: number;
  /** RAGTIME_TENANT, null when none. */
  tenant: string | null;
  dataDir: string;
};

/** Each setting `ragtime doctor` prints, with where it came from (issue 33 §1). */
export function settingsUsed(env: Env, recorded: Recorded, values: UsedValues): SettingUse[] {
  const use = (name: string, value: string | number, names: readonly string[], fileName: RecordedVariable | null): SettingUse => ({
    name,
    value: String(value),
    ...sourceOf(env, recorded, names, fileName),
  });
  return [
    use('TEMPORAL_ADDRESS', values.temporalAddress, RECORDED_VARIABLES.TEMPORAL_PORT, 'TEMPORAL_PORT'),
    use('TEMPORAL_TASK_QUEUE', values.taskQueue, ['TEMPORAL_TASK_QUEUE'], null),
    use('TEMPORAL_UI', values.temporalUiUrl, RECORDED_VARIABLES.TEMPORAL_UI_PORT, 'TEMPORAL_UI_PORT'),
    use('MILVUS_ADDRESS', values.milvusAddress, RECORDED_VARIABLES.MILVUS_PORT, 'MILVUS_PORT'),
    use('RAGTIME_KB', values.defaultKb, RECORDED_VARIABLES.RAGTIME_KB, 'RAGTIME_KB'),
    use('EMBEDDING_BASE_URL', values.embeddingsBaseUrl, RECORDED_VARIABLES.EMBEDDINGS_PORT, 'EMBEDDINGS_PORT'),
    use('RAGTIME_API_PORT', values.apiPort, RECORDED_VARIABLES.RAGTIME_API_PORT, 'RAGTIME_API_PORT'),
    use('RAGTIME_CODEC_PORT', values.codecPort, RECORDED_VARIABLES.CODEC_PORT, 'CODEC_PORT'),
    use('RAGTIME_TENANT', values.tenant ?? '(none)', RECORDED_VARIABLES.RAGTIME_TENANT, 'RAGTIME_TENANT'),
    use('RAGTIME_DATA_DIR', values.dataDir, ['RAGTIME_DATA_DIR'], null),
  ];
}

/** A service this process would reach somewhere else than where the data dir's local services were started. */
export type SettingsMismatch = { kind: 'temporal' | 'milvus' | 'embeddings'; configured: string; recorded: string; variables: string };

/**
 * The services whose configured address differs from the one the settings file records (issue 33 §1): `doctor`
 * fails those checks, since an answer from there comes from another checkout's services, not this data dir's.
 */
export function settingsMismatches(settings: LocalSettings, configured: { temporal: string; milvus: string; embeddings: string }): SettingsMismatch[] {
  const { recorded } = settings;
  const expected: Array<SettingsMismatch | null> = [
    recorded.TEMPORAL_PORT === undefined ? null : { kind: 'temporal', configured: configured.temporal, recorded: localAddress.temporal(recorded.TEMPORAL_PORT), variables: 'TEMPORAL_ADDRESS, TEMPORAL_PORT' },
    recorded.MILVUS_PORT === undefined ? null : { kind: 'milvus', configured: configured.milvus, recorded: localAddress.milvus(recorded.MILVUS_PORT), variables: 'MILVUS_ADDRESS, MILVUS_HOST, MILVUS_PORT' },
    recorded.EMBEDDINGS_PORT === undefined ? null : { kind: 'embeddings', configured: configured.embeddings.replace(/\/+$/, ''), recorded: localAddress.embeddings(recorded.EMBEDDINGS_PORT), variables: 'EMBEDDING_BASE_URL, EMBEDDINGS_PORT' },
  ];
  return expected.filter((entry): entry is SettingsMismatch => entry !== null && entry.configured !== entry.recorded);
}
