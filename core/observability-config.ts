import { z } from 'zod';
import { pythonInt } from './python-text';

/*
 * Settings of the codec server (the Temporal UI's codec endpoint, docs/SECURITY.md) and of OpenTelemetry
 * (docs/OBSERVABILITY.md), read by parseConfig (core/config.ts) from the environment.
 */

/** The hex SHA-256 digest of a bearer token: tokens are configured and kept only as digests. */
export const TokenDigest = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'not 64 hex digits (a SHA-256 digest)')
  .transform((hex) => hex.toLowerCase());

type Found = { name: string; value: string };
type Reader = {
  found(...names: string[]): Found | undefined;
  url<T extends string | undefined>(source: Found | undefined, fallback: T, example?: string): string | T;
};
type Report = (message: string) => void;

export const OBSERVABILITY_DEFAULTS = {
  // Next to the dev server's UI port (8233), on loopback: the codec server decrypts, so it is not exposed.
  RAGTIME_CODEC_PORT: 8234,
  RAGTIME_CODEC_HOST: '127.0.0.1',
  // The Temporal UI's port (scripts/env.sh); the codec server's default CORS origins are this UI.
  TEMPORAL_UI_PORT: 8233,
  RAGTIME_OTEL_EXPORTER: 'none',
  // The OTLP/HTTP default of the OpenTelemetry specification.
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
} as const;

export const CodecServerSettings = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  /** Browser origins allowed to call /encode and /decode (CORS): the Temporal UI. */
  allowedOrigins: z.array(z.string().min(1)),
  /** SHA-256 digests (hex) of the bearer tokens the codec server accepts (RAGTIME_CODEC_TOKENS). */
  tokens: z.array(TokenDigest),
});
export type CodecServerSettings = z.infer<typeof CodecServerSettings>;

export const OtelExporter = z.enum(['none', 'console', 'otlp']);
export type OtelExporter = z.infer<typeof OtelExporter>;

export const TelemetrySettings = z.object({
  /** RAGTIME_OTEL_EXPORTER: none (default; no SDK, no interceptors), console, or otlp (OTLP over HTTP). */
  exporter: OtelExporter,
  /** RAGTIME_OTEL_CONTENT=true: spans may carry questions, prompts, completions and chunk text. Off by default. */
  includeContent: z.boolean(),
  /** Where OTLP spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  otlpTracesUrl: z.string().min(1),
  /** OTEL_SERVICE_NAME, when set; otherwise each process names itself (ragtime-worker, ragtime-cli…). */
  serviceName: z.string().min(1).optional(),
  /**
   * RAGTIME_METRICS_ADDRESS (host:port): the worker serves Prometheus metrics at http://<address>/metrics — the
   * Temporal SDK's (temporal_*) and ragtime's (ragtime_*) on one endpoint; null (the default): no metrics.
   */
  metricsAddress: z.string().min(1).nullable(),
});
export type TelemetrySettings = z.infer<typeof TelemetrySettings>;

const ORIGIN = /^https?:\/\/[^/\s?#]+$/;

function port(source: Found | undefined, fallback: number, report: Report): number {
  if (source === undefined) return fallback;
  const value = pythonInt(source.value);
  if (value !== null && value >= 1 && value <= 65535) return value;
  report(`${source.name}=${JSON.stringify(source.value)} is not a port number (1-65535): set one, or unset it to use the default ${fallback}`);
  return fallback;
}

/** A comma-separated list of token digests (RAGTIME_CODEC_TOKENS, RAGTIME_API_OPERATOR_TOKENS); bad entries reported by position. */
export function readTokenDigests(read: Reader, variable: string, report: Report): string[] {
  const entries = (read.found(variable)?.value.split(',') ?? []).map((entry) => entry.trim()).filter((entry) => entry !== '');
  const hashes: string[] = [];
  entries.forEach((entry, index) => {
    const parsed = TokenDigest.safeParse(entry.replace(/^sha256:/i, ''));
    // The entry is not quoted: a raw token pasted by mistake must not reach a log.
    if (parsed.success) hashes.push(parsed.data);
    else report(`${variable}: entry ${index + 1} is not a SHA-256 digest (64 hex digits); print one with \`printf %s "$TOKEN" | sha256sum\``);
  });
  return hashes;
}

export function readCodecServerSettings(read: Reader, report: Report): CodecServerSettings {
  const D = OBSERVABILITY_DEFAULTS;
  const uiPort = port(read.found('TEMPORAL_UI_PORT'), D.TEMPORAL_UI_PORT, report);
  const originsSource = read.found('RAGTIME_CODEC_CORS_ORIGINS');
  const origins = originsSource?.value.split(',').map((origin) => origin.trim().replace(/\/+$/, '')).filter((origin) => origin !== '');
  for (const origin of origins ?? []) {
    if (!ORIGIN.test(origin)) report(`RAGTIME_CODEC_CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin such as http://127.0.0.1:${uiPort} (scheme, host and port, no path)`);
  }
  const hashes = readTokenDigests(read, 'RAGTIME_CODEC_TOKENS', report);
  return {
    host: read.found('RAGTIME_CODEC_HOST')?.value ?? D.RAGTIME_CODEC_HOST,
    // CODEC_PORT: scripts/env.sh's variable (or the settings file's), when RAGTIME_CODEC_PORT is unset.
    port: port(read.found('RAGTIME_CODEC_PORT', 'CODEC_PORT'), D.RAGTIME_CODEC_PORT, report),
    allowedOrigins: origins ?? [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
    tokens: hashes,
  };
}

const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[^:\s/]+):(\d{1,5})$/;

/** RAGTIME_METRICS_ADDRESS: host:port (an IPv6 host in brackets), port 1-65535. */
function metricsAddress(source: Found | undefined, report: Report): string | null {
  if (source === undefined) return null;
  const match = HOST_PORT.exec(source.value);
  if (match && Number(match[2]) >= 1 && Number(match[2]) <= 65535) return source.value;
  report(`RAGTIME_METRICS_ADDRESS=${JSON.stringify(source.value)} is not host:port such as 127.0.0.1:9464: set one, or unset it (no metrics)`);
  return null;
}

export function readTelemetrySettings(read: Reader, report: Report): TelemetrySettings {
  const D = OBSERVABILITY_DEFAULTS;
  const exporterSource = read.found('RAGTIME_OTEL_EXPORTER');
  const exporter = OtelExporter.safeParse(exporterSource?.value.toLowerCase() ?? D.RAGTIME_OTEL_EXPORTER);
  if (!exporter.success) {
    report(`RAGTIME_OTEL_EXPORTER=${JSON.stringify(exporterSource?.value)} is not one of none, console, otlp: set one, or unset it (none)`);
  }
  const contentSource = read.found('RAGTIME_OTEL_CONTENT');
  const content = contentSource?.value.toLowerCase();
  if (content !== undefined && content !== 'true' && content !== 'false') {
    report(`RAGTIME_OTEL_CONTENT=${JSON.stringify(contentSource?.value)} is not true or false: set one, or unset it (false)`);
  }
  const tracesUrl = read.url(read.found('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), undefined, 'http://127.0.0.1:4318/v1/traces');
  const baseUrl = read.url(read.found('OTEL_EXPORTER_OTLP_ENDPOINT'), D.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://127.0.0.1:4318');
  return {
    exporter: exporter.success ? exporter.data : 'none',
    includeContent: content === 'true',
    otlpTracesUrl: tracesUrl ?? `${baseUrl.replace(/\/+$/, '')}/v1/traces`,
    serviceName: read.found('OTEL_SERVICE_NAME')?.value,
    metricsAddress: metricsAddress(read.found('RAGTIME_METRICS_ADDRESS'), report),
  };
}
