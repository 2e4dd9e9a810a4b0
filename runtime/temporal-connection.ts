import type { TLSConfig } from '@temporalio/client';
import type { RagConfig } from '../core/config';
import { RagError } from '../core/errors';
import type { TlsSettings } from '../core/tls-settings';
import { probeTls } from './tls-probe';

/*
 * The one place a ragtime process turns its Temporal settings into connection options: the worker's
 * NativeConnection, RagClient (CLI, serve, MCP, demo) and the benchmarks all take these, so a secured cluster
 * (mTLS, a private CA, Temporal Cloud's API key) is reached the same way by every one of them.
 */

export type TemporalConnectionOptions = { address: string; tls?: TLSConfig | boolean; apiKey?: string };

/** The SDK's TLS options for `tls`; `true` (the system's roots) when TLS is on with nothing else set. */
export function tlsConfigOf(tls: TlsSettings): TLSConfig | true {
  const config: TLSConfig = {
    ...(tls.caPem !== undefined ? { serverRootCACertificate: Buffer.from(tls.caPem) } : {}),
    ...(tls.certPem !== undefined && tls.keyPem !== undefined ? { clientCertPair: { crt: Buffer.from(tls.certPem), key: Buffer.from(tls.keyPem) } } : {}),
    ...(tls.serverName !== undefined ? { serverNameOverride: tls.serverName } : {}),
  };
  return Object.keys(config).length > 0 ? config : true;
}

/** Connection options for Connection.connect (clients) and NativeConnection.connect (workers). */
export function temporalConnectionOptions(temporal: RagConfig['temporal']): TemporalConnectionOptions {
  return {
    address: temporal.address,
    ...(temporal.tls ? { tls: tlsConfigOf(temporal.tls) } : {}),
    ...(temporal.apiKey !== undefined ? { apiKey: temporal.apiKey } : {}),
  };
}

/** How the connection is secured, for start-up lines and errors (never a secret). */
export function describeTemporalSecurity(temporal: RagConfig['temporal']): string {
  if (!temporal.tls) return 'plain';
  const parts = [temporal.tls.certPem ? 'mTLS' : 'TLS', temporal.tls.caPem ? `CA ${temporal.tls.files.ca}` : 'system CAs'];
  if (temporal.tls.serverName) parts.push(`server name ${temporal.tls.serverName}`);
  if (temporal.apiKey) parts.push('API key');
  return parts.join(', ');
}

/** The same options without the address, for `RagClient.connect({ address, connection })`. */
export function securedConnection(temporal: RagConfig['temporal']): Omit<TemporalConnectionOptions, 'address'> {
  const { address: _address, ...secured } = temporalConnectionOptions(temporal);
  return secured;
}

/**
 * A failed connection, explained: over TLS, one handshake made by hand says why (runtime/tls-probe.ts), since the
 * SDK reports only a missed deadline; otherwise, or when the handshake succeeds, the error stands.
 */
export async function explainConnectFailure(error: unknown, temporal: RagConfig['temporal']): Promise<unknown> {
  if (!temporal.tls) return error;
  const probe = await probeTls(temporal.address, 'TEMPORAL', temporal.tls);
  if (probe.ok) return error;
  return new RagError('SERVICE_UNAVAILABLE', `cannot connect to Temporal at ${temporal.address} over TLS: ${probe.explanation}`, { cause: error });
}
