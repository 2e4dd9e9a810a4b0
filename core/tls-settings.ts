import { z } from 'zod';
import type { ConfigFiles } from './codec-keys';

/*
 * TLS to a service ragtime connects to (Temporal, Milvus): from <PREFIX>_TLS, <PREFIX>_TLS_CA, <PREFIX>_TLS_CERT,
 * <PREFIX>_TLS_KEY and <PREFIX>_TLS_SERVER_NAME. The PEM files are read when the configuration is loaded (through
 * `files`: core/ does no I/O), so a missing or unreadable file is a configuration error at start-up, not a failed
 * connection later. Off unless asked for: a setting that needs TLS (a file, a server name, Temporal's API key) turns
 * it on, and <PREFIX>_TLS=true alone means TLS with the system's root certificates.
 */

const pem = z.string().min(1);

export const TlsSettings = z.object({
  /** PEM of the CA that signs the server's certificate; absent: the system's roots. */
  caPem: pem.optional(),
  /** mTLS: the client certificate chain and its private key (both or neither). */
  certPem: pem.optional(),
  keyPem: pem.optional(),
  /** The name to check the server's certificate against when it is not the address's host. */
  serverName: z.string().min(1).optional(),
  /** Where each PEM came from, for messages (never the PEM itself). */
  files: z.object({ ca: z.string().optional(), cert: z.string().optional(), key: z.string().optional() }),
});
export type TlsSettings = z.infer<typeof TlsSettings>;

type Found = { name: string; value: string };
type Read = { found(...names: string[]): Found | undefined };

const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----/;
const errorCode = (error: unknown): string => (error as { code?: unknown } | null)?.code?.toString() ?? 'unreadable';

/**
 * The TLS settings of the service whose variables start with `prefix`, or null for a plain connection.
 * `impliedBy` names a variable already read that needs TLS (TEMPORAL_API_KEY); problems are reported, naming the
 * variable and the file, never quoting a file's content.
 */
export function readTlsSettings(
  prefix: 'TEMPORAL' | 'MILVUS',
  read: Read,
  files: ConfigFiles | undefined,
  report: (message: string) => void,
  impliedBy?: string,
): TlsSettings | null {
  const name = (suffix: string) => `${prefix}_TLS${suffix}`;
  const switched = read.found(name(''));
  const [ca, cert, key, serverName] = ['_CA', '_CERT', '_KEY', '_SERVER_NAME'].map((suffix) => read.found(name(suffix)));
  if (switched && switched.value !== 'true' && switched.value !== 'false') {
    report(`${switched.name}=${JSON.stringify(switched.value)} is not true or false: set one, or unset it (TLS is then on when a ${prefix}_TLS_* file is set)`);
    return null;
  }
  const asked = [ca, cert, key, serverName].filter((found): found is Found => found !== undefined);
  if (switched?.value === 'false') {
    if (asked.length > 0) report(`${switched.name}=false, but ${asked.map((found) => found.name).join(', ')} ${asked.length > 1 ? 'are' : 'is'} set: unset ${switched.name} to use them, or unset them`);
    return null;
  }
  if (switched?.value !== 'true' && asked.length === 0 && impliedBy === undefined) return null;
  if ((cert === undefined) !== (key === undefined)) {
    const [have, lack] = cert ? [name('_CERT'), name('_KEY')] : [name('_KEY'), name('_CERT')];
    report(`${have} is set without ${lack}: a client certificate (mTLS) needs both its certificate and its private key`);
  }
  const readPem = (found: Found | undefined): string | undefined => {
    if (found === undefined) return undefined;
    if (files === undefined) {
      report(`${found.name} is set, but this caller reads no files: build the config with loadConfig (runtime/load-config.ts)`);
      return undefined;
    }
    let text: string | null;
    try {
      text = files.readText(found.value);
    } catch (error) {
      report(`${found.name} ${found.value} cannot be read (${errorCode(error)}): check its permissions`);
      return undefined;
    }
    if (text === null) {
      report(`${found.name}=${found.value}: no such file`);
      return undefined;
    }
    if (!PEM_BLOCK.test(text)) {
      report(`${found.name} ${found.value} holds no PEM block (-----BEGIN …-----): give the PEM file, not DER or a key store`);
      return undefined;
    }
    return text;
  };
  return {
    caPem: readPem(ca),
    certPem: readPem(cert),
    keyPem: readPem(key),
    serverName: serverName?.value,
    files: { ca: ca?.value, cert: cert?.value, key: key?.value },
  };
}
