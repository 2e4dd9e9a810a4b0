import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiToken } from '../../core/schemas/api-tokens';

// What RAGTIME_API_TOKENS holds (`ragtime token hash <token>` prints it); defined with the config it matches.
export { hashToken } from '../../runtime/api-token-digest';

/** The token of an `Authorization: Bearer <token>` header, or null when the header is missing or another scheme. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/**
 * Finds the tenant of a presented token.
 *
 * The token is hashed first, so every comparison is between two 32-byte digests: neither the token's length nor
 * how many of its characters match shows in the timing. Every configured digest is compared (no early exit), so
 * the timing does not tell which entry matched either.
 *
 * @example
 * const tenantOf = createTokenVerifier([{ tenant: 'acme', sha256: hashToken('s3cret') }]);
 * tenantOf('s3cret'); // 'acme'
 */
export function createTokenVerifier(tokens: readonly ApiToken[]): (token: string) => string | null {
  const match = createTokenMatcher(tokens);
  return (token) => match(token)?.tenant ?? null;
}

/** The configured entry of a presented token (its tenant, knowledge bases and groups), or null; as createTokenVerifier. */
export function createTokenMatcher(tokens: readonly ApiToken[]): (token: string) => ApiToken | null {
  const digests = tokens.map((entry) => ({ entry, digest: Buffer.from(entry.sha256, 'hex') }));
  return (token) => {
    const presented = createHash('sha256').update(token, 'utf8').digest();
    let found: ApiToken | null = null;
    for (const { entry, digest } of digests) {
      if (timingSafeEqual(digest, presented) && found === null) found = entry;
    }
    return found;
  };
}
