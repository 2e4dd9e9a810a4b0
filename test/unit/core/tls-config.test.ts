import type { ConfigFiles } from '../../../core/codec-keys';
import { parseConfig } from '../../../core/config';
import { isRagError } from '../../../core/errors';
import { describeTemporalSecurity, temporalConnectionOptions } from '../../../runtime/temporal-connection';

const PEM = (what: string) => `-----BEGIN ${what}-----\nAAAA\n-----END ${what}-----\n`;
const files = (tree: Record<string, string>): ConfigFiles => ({ readText: (path) => tree[path] ?? null });
const TREE = files({ '/pki/ca.pem': PEM('CERTIFICATE'), '/pki/client.pem': PEM('CERTIFICATE'), '/pki/client.key': PEM('PRIVATE KEY'), '/pki/client.der': '0\x82\x01' });

function problems(env: Record<string, string>, tree: ConfigFiles | null = TREE): string {
  try {
    parseConfig(env, tree ?? undefined);
  } catch (error) {
    if (isRagError(error) && error.code === 'INVALID_CONFIG') return error.message;
    throw error;
  }
  throw new Error('expected INVALID_CONFIG');
}

describe('Temporal TLS and API key (TEMPORAL_TLS_*, TEMPORAL_API_KEY)', () => {
  test('nothing set: a plain connection, as the local dev server wants', () => {
    const { temporal } = parseConfig({}, TREE);
    expect(temporal.tls).toBeNull();
    expect(temporalConnectionOptions(temporal)).toEqual({ address: '127.0.0.1:7233' });
    expect(describeTemporalSecurity(temporal)).toBe('plain');
  });

  test('mTLS with a private CA and a server name: the PEM contents, read once, go to the SDK', () => {
    const { temporal } = parseConfig({ TEMPORAL_TLS_CA: '/pki/ca.pem', TEMPORAL_TLS_CERT: '/pki/client.pem', TEMPORAL_TLS_KEY: '/pki/client.key', TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' }, TREE);
    const options = temporalConnectionOptions(temporal);
    expect(options.tls).toEqual({
      serverRootCACertificate: Buffer.from(PEM('CERTIFICATE')),
      clientCertPair: { crt: Buffer.from(PEM('CERTIFICATE')), key: Buffer.from(PEM('PRIVATE KEY')) },
      serverNameOverride: 'temporal.internal',
    });
    expect(describeTemporalSecurity(temporal)).toBe('mTLS, CA /pki/ca.pem, server name temporal.internal');
  });

  test("Temporal Cloud's API key turns TLS on with the system's roots, and is passed as the SDK's apiKey", () => {
    const { temporal } = parseConfig({ TEMPORAL_API_KEY: 'tc-key', TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'ns.acct' }, TREE);
    expect(temporalConnectionOptions(temporal)).toEqual({ address: 'ns.acct.tmprl.cloud:7233', tls: true, apiKey: 'tc-key' });
    expect(describeTemporalSecurity(temporal)).toBe('TLS, system CAs, API key');
  });

  test('TEMPORAL_TLS=true alone: TLS with the system roots; TEMPORAL_TLS=false with files set is a contradiction', () => {
    expect(temporalConnectionOptions(parseConfig({ TEMPORAL_TLS: 'true' }, TREE).temporal).tls).toBe(true);
    expect(problems({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: '/pki/ca.pem' })).toContain('TEMPORAL_TLS=false, but TEMPORAL_TLS_CA is set');
    expect(problems({ TEMPORAL_TLS: 'yes' })).toContain('TEMPORAL_TLS="yes" is not true or false');
  });

  test('a certificate without its key, a key without its certificate', () => {
    expect(problems({ TEMPORAL_TLS_CERT: '/pki/client.pem' })).toContain('TEMPORAL_TLS_CERT is set without TEMPORAL_TLS_KEY');
    expect(problems({ TEMPORAL_TLS_KEY: '/pki/client.key' })).toContain('TEMPORAL_TLS_KEY is set without TEMPORAL_TLS_CERT');
  });

  test('a missing file, an unreadable file, a file that is not PEM — named, its content never quoted', () => {
    expect(problems({ TEMPORAL_TLS_CA: '/pki/none.pem' })).toContain('TEMPORAL_TLS_CA=/pki/none.pem: no such file');
    const denied: ConfigFiles = { readText: () => { throw Object.assign(new Error('EACCES: secret'), { code: 'EACCES' }); } };
    const message = problems({ TEMPORAL_TLS_CA: '/pki/ca.pem' }, denied);
    expect(message).toContain('TEMPORAL_TLS_CA /pki/ca.pem cannot be read (EACCES)');
    expect(message).not.toContain('secret');
    expect(problems({ TEMPORAL_TLS_CA: '/pki/client.der' })).toContain('holds no PEM block');
  });

  test('a caller without file access cannot take TLS files (parseConfig without files)', () => {
    expect(problems({ TEMPORAL_TLS_CA: '/pki/ca.pem' }, null)).toContain('TEMPORAL_TLS_CA is set, but this caller reads no files');
  });
});

describe('Milvus TLS (MILVUS_TLS_*)', () => {
  test('off by default; a CA file turns it on; the token stays separate', () => {
    expect(parseConfig({}, TREE).milvus.tls).toBeNull();
    const { milvus } = parseConfig({ MILVUS_TLS_CA: '/pki/ca.pem', MILVUS_TOKEN: 'user:pass' }, TREE);
    expect(milvus.tls).toMatchObject({ caPem: PEM('CERTIFICATE'), files: { ca: '/pki/ca.pem' } });
    expect(milvus.token).toBe('user:pass');
  });
});
