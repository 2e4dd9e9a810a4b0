import type { FastifyInstance } from 'fastify';
import { ApiFailure, shortPath } from './api-failure';
import type { TenantDirectory } from './tenant-directory';
import { bearerToken } from './token-auth';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's bearer token (set by the auth hook; '' on public routes). */
    tenant: string;
    /** The groups of the request's bearer token (issue 44 §4): what documents it may read; [] on public routes. */
    groups: string[];
  }
  interface FastifyContextConfig {
    /** A route anyone may call without a token (health, the OpenAPI document). */
    public?: boolean;
    /**
     * A route for the operator's tokens only (GET /api/doctor: service addresses and model names). A tenant's token
     * gets the 404 of a path that does not exist (issue 35 §3).
     */
    operator?: boolean;
  }
}

const REALM = 'Bearer realm="ragtime"';

const invalidToken = () =>
  new ApiFailure(401, 'UNAUTHORIZED', 'the bearer token is not valid; ask the operator for one', { 'WWW-Authenticate': `${REALM}, error="invalid_token"` });

/**
 * Every route needs `Authorization: Bearer <token>` unless it is marked `config: { public: true }`. A missing or
 * unknown token gets 401 with `WWW-Authenticate` (RFC 6750); the hook runs before the body is parsed, so an
 * unauthenticated caller cannot make the server read a body either.
 */
export function installBearerAuth(app: FastifyInstance, tenants: TenantDirectory): void {
  app.decorateRequest('tenant', '');
  app.decorateRequest('groups', null as unknown as string[]);
  app.addHook('onRequest', async (request) => {
    // A CORS preflight carries no token by design; it is answered by @fastify/cors and returns no data.
    if (request.routeOptions.config.public === true || request.method === 'OPTIONS') return;
    if (request.routeOptions.config.operator === true) return authenticateOperator(request.headers.authorization, tenants, `${request.method} ${request.url.split('?')[0] ?? ''}`);
    const tenant = authenticate(request.headers.authorization, tenants);
    // A purged tenant's token (issue 45 §2) reads as any unknown one: nothing says the tenant existed.
    if (await tenants.isPurged(tenant)) throw invalidToken();
    request.tenant = tenant;
    request.groups = tenants.groupsOf(bearerToken(request.headers.authorization) ?? '');
  });
}

/** Passes the operator's tokens; a tenant's token gets the 404 of a path that does not exist, others the 401. */
async function authenticateOperator(authorization: string | undefined, tenants: TenantDirectory, route: string): Promise<void> {
  const token = bearerToken(authorization);
  if (token !== null && tenants.isOperator(token)) return;
  const tenant = token === null ? null : tenants.tenantOf(token);
  if (tenant !== null && !(await tenants.isPurged(tenant))) throw new ApiFailure(404, 'NOT_FOUND', `no route ${shortPath(route)}`);
  throw new ApiFailure(401, 'UNAUTHORIZED', token === null ? 'missing bearer token; send Authorization: Bearer <token>' : 'the bearer token is not valid; ask the operator for one', {
    'WWW-Authenticate': token === null ? REALM : `${REALM}, error="invalid_token"`,
  });
}

/** The tenant of an `Authorization` header; throws the API's 401 for a missing, malformed or unknown token. */
export function authenticate(authorization: string | undefined, tenants: TenantDirectory): string {
  const token = bearerToken(authorization);
  if (token === null) {
    throw new ApiFailure(401, 'UNAUTHORIZED', 'missing bearer token; send Authorization: Bearer <token>', { 'WWW-Authenticate': REALM });
  }
  const tenant = tenants.tenantOf(token);
  if (tenant === null && tenants.isOperator(token)) {
    throw new ApiFailure(401, 'UNAUTHORIZED', "an operator's token opens GET /api/doctor only; this route needs a tenant's token", {
      'WWW-Authenticate': `${REALM}, error="invalid_token"`,
    });
  }
  if (tenant === null) throw invalidToken();
  return tenant;
}
