import type { FastifyInstance } from 'fastify';
import { ApiFailure } from './api-failure';
import type { TenantDirectory } from './tenant-directory';
import { bearerToken } from './token-auth';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's bearer token (set by the auth hook; '' on public routes). */
    tenant: string;
  }
  interface FastifyContextConfig {
    /** A route anyone may call without a token (health, the OpenAPI document). */
    public?: boolean;
  }
}

const REALM = 'Bearer realm="ragtime"';

/**
 * Every route needs `Authorization: Bearer <token>` unless it is marked `config: { public: true }`. A missing or
 * unknown token gets 401 with `WWW-Authenticate` (RFC 6750); the hook runs before the body is parsed, so an
 * unauthenticated caller cannot make the server read a body either.
 */
export function installBearerAuth(app: FastifyInstance, tenants: TenantDirectory): void {
  app.decorateRequest('tenant', '');
  app.addHook('onRequest', async (request) => {
    // A CORS preflight carries no token by design; it is answered by @fastify/cors and returns no data.
    if (request.routeOptions.config.public === true || request.method === 'OPTIONS') return;
    request.tenant = authenticate(request.headers.authorization, tenants);
  });
}

/** The tenant of an `Authorization` header; throws the API's 401 for a missing, malformed or unknown token. */
export function authenticate(authorization: string | undefined, tenants: TenantDirectory): string {
  const token = bearerToken(authorization);
  if (token === null) {
    throw new ApiFailure(401, 'UNAUTHORIZED', 'missing bearer token; send Authorization: Bearer <token>', { 'WWW-Authenticate': REALM });
  }
  const tenant = tenants.tenantOf(token);
  if (tenant === null) {
    throw new ApiFailure(401, 'UNAUTHORIZED', 'the bearer token is not valid; ask the operator for one', {
      'WWW-Authenticate': `${REALM}, error="invalid_token"`,
    });
  }
  return tenant;
}
