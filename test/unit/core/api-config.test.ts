import { parseConfig } from '../../../core/config';
import { RagError } from '../../../core/errors';
import { parseApiTokensFile } from '../../../core/schemas/api-tokens';

/* The HTTP API's configuration (issue 6 §2): RAGTIME_API_TOKENS / RAGTIME_API_TOKENS_FILE (hashes only), where to
 * listen and the body limit, with the defaults of core/config.ts. */

const A = 'a'.repeat(64);
const B = 'B'.repeat(64);

function configError(env: Record<string, string>, files?: Parameters<typeof parseConfig>[1]): RagError {
  try {
    parseConfig(env, files);
  } catch (error) {
    if (error instanceof RagError) return error;
    throw error;
  }
  throw new Error('expected INVALID_CONFIG');
}

test('defaults: no tokens, 127.0.0.1:8280, 64 KiB bodies', () => {
  expect(parseConfig({}).api).toEqual({ tokens: [], tokensFile: undefined, operatorTokens: [], port: 8280, host: '127.0.0.1', bodyLimitBytes: 65536, corsOrigins: [] });
});

test('RAGTIME_API_TOKENS: tenant:sha256 pairs, blanks ignored, hashes lower-cased, several per tenant', () => {
  const env = { RAGTIME_API_TOKENS: ` acme:${A} , globex:${B},acme:${'c'.repeat(64)},`, RAGTIME_API_PORT: '9000', RAGTIME_API_HOST: '0.0.0.0', RAGTIME_API_BODY_LIMIT_BYTES: '1024' };
  expect(parseConfig(env).api).toEqual({
    tokens: [{ tenant: 'acme', sha256: A }, { tenant: 'globex', sha256: 'b'.repeat(64) }, { tenant: 'acme', sha256: 'c'.repeat(64) }],
    tokensFile: undefined,
    operatorTokens: [],
    port: 9000,
    host: '0.0.0.0',
    bodyLimitBytes: 1024,
    corsOrigins: [],
  });
});

test("issue 35 §3: RAGTIME_API_OPERATOR_TOKENS holds the operator's token digests, lower-cased; a bad entry is refused by position, never quoted", () => {
  expect(parseConfig({ RAGTIME_API_OPERATOR_TOKENS: ` ${'D'.repeat(64)}, sha256:${A} ` }).api.operatorTokens).toEqual(['d'.repeat(64), A]);
  expect(() => parseConfig({ RAGTIME_API_OPERATOR_TOKENS: `${A},rt_raw-token-pasted` })).toThrow(/RAGTIME_API_OPERATOR_TOKENS: entry 2 is not a SHA-256 digest/);
  expect(() => parseConfig({ RAGTIME_API_OPERATOR_TOKENS: 'rt_raw-token-pasted' })).not.toThrow(/rt_raw/);
});

test('DESIGN §4b: a token entry may list the knowledge bases its tenant may use (tenant:sha256:kb|kb); bad names are refused', () => {
  const env = { RAGTIME_API_TOKENS: `acme:${A}:manuals| faq ,globex:${B}` };
  expect(parseConfig(env).api.tokens).toEqual([
    { tenant: 'acme', sha256: A, kbs: ['manuals', 'faq'] },
    { tenant: 'globex', sha256: 'b'.repeat(64) },
  ]);
  const error = configError({ RAGTIME_API_TOKENS: `acme:${A}:bad-name,globex:${B}:x:y` });
  expect(error.message).toContain('entry 1 is not "tenant:sha256hex[:kb|kb…][:groups=g|g…]": knowledge base name may hold letters, digits and _ only');
  expect(error.message).toContain('entry 2 is not "tenant:sha256hex[:kb|kb…][:groups=g|g…]": too many ":"-separated parts');
  expect(parseApiTokensFile(JSON.stringify([{ tenant: 'acme', sha256: A, kbs: ['manuals'] }]), 'f.json').tokens).toEqual([{ tenant: 'acme', sha256: A, kbs: ['manuals'] }]);
});

test('RAGTIME_API_CORS_ORIGINS: origins without a trailing slash; a path or another scheme is refused', () => {
  expect(parseConfig({ RAGTIME_API_CORS_ORIGINS: 'https://app.example.com/, http://127.0.0.1:3000' }).api.corsOrigins).toEqual(['https://app.example.com', 'http://127.0.0.1:3000']);
  expect(configError({ RAGTIME_API_CORS_ORIGINS: 'https://app.example.com/x,ftp://a' }).message.split(' ✖ ').slice(1)).toMatchInlineSnapshot(`
[
  "RAGTIME_API_CORS_ORIGINS: "https://app.example.com/x" is not an origin such as https://app.example.com (scheme, host and port, no path)",
  "RAGTIME_API_CORS_ORIGINS: "ftp://a" is not an origin such as https://app.example.com (scheme, host and port, no path)",
]
`);
});

test('bad entries are reported by position, and the value (maybe a raw token) is never quoted', () => {
  const error = configError({ RAGTIME_API_TOKENS: `acme:${A},s3cr3t-raw-token,bad tenant:${B},globex:abc`, RAGTIME_API_PORT: '0' });
  expect(error.message).not.toContain('s3cr3t');
  expect(error.message).not.toContain(A);
  expect(error.message.split(' ✖ ')).toMatchInlineSnapshot(`
[
  "invalid configuration:",
  "RAGTIME_API_TOKENS: entry 2 is not "tenant:sha256hex[:kb|kb…][:groups=g|g…]": token hash is not 64 hex digits (a SHA-256 digest); print one with \`ragtime token hash <token>\`",
  "RAGTIME_API_TOKENS: entry 3 is not "tenant:sha256hex[:kb|kb…][:groups=g|g…]": tenant name may hold letters, digits and _ . - only",
  "RAGTIME_API_TOKENS: entry 4 is not "tenant:sha256hex[:kb|kb…][:groups=g|g…]": token hash is not 64 hex digits (a SHA-256 digest); print one with \`ragtime token hash <token>\`",
  "RAGTIME_API_PORT="0" is not a port number (1-65535): set one, or unset it to use the default 8280",
]
`);
});

test('RAGTIME_API_TOKENS_FILE is read through the files of loadConfig and adds to RAGTIME_API_TOKENS', () => {
  const files = { readText: (path: string) => (path === '/etc/ragtime/tokens.json' ? JSON.stringify([{ tenant: 'globex', sha256: B }]) : null) };
  const config = parseConfig({ RAGTIME_API_TOKENS: `acme:${A}`, RAGTIME_API_TOKENS_FILE: '/etc/ragtime/tokens.json' }, files);
  expect(config.api.tokens).toEqual([{ tenant: 'acme', sha256: A }, { tenant: 'globex', sha256: 'b'.repeat(64) }]);
  expect(config.api.tokensFile).toBe('/etc/ragtime/tokens.json');
});

test('a missing, unreadable or malformed token file, or one given without file access, is an INVALID_CONFIG', () => {
  const env = { RAGTIME_API_TOKENS_FILE: '/nope.json' };
  expect(configError(env, { readText: () => null }).message).toContain('RAGTIME_API_TOKENS_FILE=/nope.json: no such file');
  const denied = configError(env, { readText: () => { throw Object.assign(new Error('denied'), { code: 'EACCES' }); } });
  expect(denied.message).toContain('RAGTIME_API_TOKENS_FILE /nope.json cannot be read (EACCES)');
  expect(configError(env).message).toContain('RAGTIME_API_TOKENS_FILE is set, but this caller reads no files');
  expect(configError(env, { readText: () => '{"tenant":' }).message).toContain('RAGTIME_API_TOKENS_FILE /nope.json is not JSON');
});

test('parseApiTokensFile names the entry and the field', () => {
  expect(parseApiTokensFile(JSON.stringify([{ tenant: 'acme', sha256: A }, { tenant: 'x y', sha256: A }, { tenant: 'z' }]), 'f.json').problems).toMatchInlineSnapshot(`
[
  "RAGTIME_API_TOKENS_FILE f.json: entry 2 (tenant): tenant name may hold letters, digits and _ . - only; expected an array of {"tenant": "…", "sha256": "…"}",
  "RAGTIME_API_TOKENS_FILE f.json: entry 3 (sha256): Invalid input: expected string, received undefined; expected an array of {"tenant": "…", "sha256": "…"}",
]
`);
  expect(parseApiTokensFile('{}', 'f.json').problems).toMatchInlineSnapshot(`
[
  "RAGTIME_API_TOKENS_FILE f.json: the file: Invalid input: expected array, received object; expected an array of {"tenant": "…", "sha256": "…"}",
]
`);
});
