// The default import is Node's module object itself, so a spy on it is what token-auth.ts calls.
import crypto from 'node:crypto';
import { bearerToken, createTokenMatcher, createTokenVerifier, hashToken } from '../../../server/http/token-auth';

/* Bearer tokens (issue 6 §2): hashes at rest, the scheme parsed strictly, and a comparison that takes the same time
 * whichever token is presented. */

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');
const TOKENS = [
  { tenant: 'acme', sha256: hash('acme-token') },
  { tenant: 'globex', sha256: hash('globex-token') },
  { tenant: 'initech', sha256: hash('initech-token') },
];

test('hashToken is the hex SHA-256 of the UTF-8 token (FIPS 180-2 test vector "abc")', () => {
  expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  expect(hashToken('令牌')).toBe(hash('令牌'));
});

test.each([
  ['Bearer abc', 'abc'],
  ['bearer abc', 'abc'],
  ['Bearer   abc  ', 'abc'],
  ['Bearer', null],
  ['Bearer ', null],
  ['Bearer a b', null],
  ['Basic abc', null],
  ['abc', null],
  [undefined, null],
])('bearerToken(%j) → %j', (header, token) => {
  expect(bearerToken(header)).toBe(token);
});

test('a token maps to its tenant; unknown tokens, hashes and near misses to null', () => {
  const tenantOf = createTokenVerifier(TOKENS);
  expect(tenantOf('acme-token')).toBe('acme');
  expect(tenantOf('initech-token')).toBe('initech');
  for (const token of ['', 'acme-token ', 'acme-toke', 'ACME-TOKEN', hash('acme-token')]) expect(tenantOf(token)).toBeNull();
  expect(createTokenVerifier([])('acme-token')).toBeNull();
});

test('constant time: timingSafeEqual on 32-byte digests, once per configured token, whatever is presented', () => {
  const compare = jest.spyOn(crypto, 'timingSafeEqual');
  try {
    const tenantOf = createTokenVerifier(TOKENS);
    // The first, the last, no match, and tokens of very different lengths: always every entry, always 32 bytes.
    for (const token of ['acme-token', 'initech-token', 'wrong', 'x'.repeat(10_000), '']) {
      compare.mockClear();
      tenantOf(token);
      expect(compare).toHaveBeenCalledTimes(TOKENS.length);
      for (const [a, b] of compare.mock.calls) expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
    }
  } finally {
    compare.mockRestore();
  }
});

test('no string comparison of tokens or hashes in the verifier (the source uses only timingSafeEqual)', () => {
  // The verifier asks the matcher (issue 44 §4: the matched entry carries the token's groups), which compares.
  expect(createTokenVerifier.toString()).toContain('createTokenMatcher');
  const source = createTokenMatcher.toString();
  expect(source).toContain('timingSafeEqual');
  expect(source).not.toMatch(/===\s*(presented|token|sha256)|\.equals\(/);
  expect(createTokenVerifier.toString()).not.toMatch(/===\s*(presented|token|sha256)|\.equals\(/);
});
