import * as tls from 'node:tls';
import type { TlsSettings } from '../core/tls-settings';

/*
 * Why a TLS connection failed, in words a person can act on. gRPC clients report a failed handshake as "failed to
 * connect before the deadline"; after such a failure this makes one plain TLS handshake with the same settings and
 * reads what TLS itself says (the server's certificate is not signed by the CA given, the name does not match, the
 * server wants a client certificate), naming the variables to change.
 */

export type TlsProbeResult = { ok: true } | { ok: false; explanation: string };

const PROBE_TIMEOUT_MS = 5_000;

/** OpenSSL's "…:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:…" → "tlsv13 alert certificate required". */
const readable = (message: string): string => /SSL routines:[^:]*:([^:]+):/.exec(message)?.[1] ?? message.trim();

export function explainTlsFailure(message: string, prefix: string, settings: TlsSettings): string {
  const reason = readable(message);
  const ca = settings.files.ca !== undefined ? `${prefix}_TLS_CA ${settings.files.ca}` : "the system's CA certificates";
  if (/self[- ]signed|unable to (get|verify)|UNABLE_TO_|unknown ca|certificate chain/i.test(reason)) {
    return `the server's TLS certificate is not signed by ${ca} (${reason}): set ${prefix}_TLS_CA to the CA that signed it`;
  }
  if (/altname|hostname|IP: .* is not in the cert|ERR_TLS_CERT_ALTNAME/i.test(reason)) {
    return `the server's TLS certificate is not for this name (${reason}): set ${prefix}_TLS_SERVER_NAME to a name it is for`;
  }
  if (/certificate required|handshake failure|alert number 116|bad certificate|alert number 40|alert number 42/i.test(reason)) {
    return settings.certPem === undefined
      ? `the server asks for a client certificate (mTLS) and none is set (${reason}): set ${prefix}_TLS_CERT and ${prefix}_TLS_KEY`
      : `the server refused the client certificate ${settings.files.cert} (${reason}): it must be signed by a CA the server trusts`;
  }
  if (/wrong version number|packet length too long|ECONNRESET|socket hang up/i.test(reason)) {
    return `the server did not complete a TLS handshake (${reason}): it may serve plaintext; unset ${prefix}_TLS* for a plain connection`;
  }
  return `the TLS handshake failed: ${reason}`;
}

/** One TLS handshake with `settings` to `address` (host:port); a refusal comes back explained. */
export function probeTls(address: string, prefix: string, settings: TlsSettings): Promise<TlsProbeResult> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(at + 1));
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      servername: settings.serverName ?? (/^[\d.:]+$/.test(host) ? undefined : host),
      ...(settings.caPem !== undefined ? { ca: settings.caPem } : {}),
      ...(settings.certPem !== undefined && settings.keyPem !== undefined ? { cert: settings.certPem, key: settings.keyPem } : {}),
      ALPNProtocols: ['h2'],
      timeout: PROBE_TIMEOUT_MS,
    });
    const done = (result: TlsProbeResult) => {
      socket.destroy();
      resolve(result);
    };
    // TLS 1.3 reports a refused client certificate after the handshake, on the first read: wait for it briefly.
    socket.once('secureConnect', () => setTimeout(() => done({ ok: true }), 300));
    socket.once('error', (error) => done({ ok: false, explanation: explainTlsFailure(error.message, prefix, settings) }));
    socket.once('timeout', () => done({ ok: false, explanation: `no TLS handshake within ${PROBE_TIMEOUT_MS / 1000} s` }));
  });
}
