import * as http from 'node:http';
import * as net from 'node:net';
import type { Meter } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { Resource } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/*
 * One Prometheus endpoint for a worker (RAGTIME_METRICS_ADDRESS): ragtime's own metrics (OpenTelemetry, ragtime_*)
 * and the Temporal SDK's (task latencies, slots, sticky cache: temporal_*). The SDK's metrics come from its Rust
 * core, which can only serve them itself, so the core serves them on a private loopback port and each scrape of
 * /metrics returns both texts, ragtime's first. A scrape never fails because one half is missing: the missing half
 * is named in a comment line.
 */

export type MetricsEndpoint = {
  /** host:port actually listened on (the port is chosen when the address says :0). */
  address: string;
  meter: Meter;
  close(): Promise<void>;
};

/** A free loopback port for the SDK's own exporter (released before the core binds it). */
export async function freeLoopbackAddress(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `127.0.0.1:${port}`;
}

const split = (address: string): { host: string; port: number } => {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(address.slice(at + 1)) };
};

async function sdkMetricsText(sdkAddress: string | null): Promise<string> {
  if (sdkAddress === null) return '';
  try {
    const response = await fetch(`http://${sdkAddress}/metrics`, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? await response.text() : `# temporal SDK metrics unavailable: HTTP ${response.status}\n`;
  } catch (error) {
    return `# temporal SDK metrics unavailable: ${(error as Error).message}\n`;
  }
}

export async function startMetricsEndpoint(address: string, options: { sdkAddress: string | null; serviceName?: string }): Promise<MetricsEndpoint> {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter], resource: new Resource({ 'service.name': options.serviceName ?? 'ragtime-worker' }) });
  const serializer = new PrometheusSerializer();
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('ragtime metrics are at /metrics\n');
      return;
    }
    void (async () => {
      const [{ resourceMetrics, errors }, sdkText] = await Promise.all([exporter.collect(), sdkMetricsText(options.sdkAddress)]);
      const ours = serializer.serialize(resourceMetrics);
      const problems = errors.map((error) => `# ragtime metrics collection error: ${String(error)}\n`).join('');
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(`${problems}${ours}\n${sdkText}`);
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics collection failed: ${(error as Error).message}\n`);
    });
  });
  const { host, port } = split(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as net.AddressInfo;
  return {
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    meter: provider.getMeter('ragtime'),
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await provider.shutdown();
    },
  };
}
