import Fastify from 'fastify';
import { installBearerAuth } from '../../../server/http/bearer-auth';
import { installErrorHandlers } from '../../../server/http/error-handler';
import { createTenantDirectory } from '../../../server/http/tenant-directory';
import { hashToken } from '../../../server/http/token-auth';

/*
 * A purged tenant's tokens (issue 45 §2) stay configured but are refused as unknown ones: 401 on a tenant's route and
 * on the operator's (where a live tenant's token gets the 404 of a missing path), read from the store at each request.
 */

test('a purged tenant gets the 401 of an unknown token everywhere; another tenant is let in; readmitted, it is again', async () => {
  const purged = new Set<string>();
  const tenants = createTenantDirectory({
    tokens: [{ tenant: 'acme', sha256: hashToken('acme-token') }, { tenant: 'globex', sha256: hashToken('globex-token') }],
    owners: { claim: async (_, tenant) => tenant, ownerOf: async () => null, sessionsOf: async () => [], close: async () => undefined },
    purged: { isPurged: async (tenant) => purged.has(tenant) },
    defaultKb: 'kb',
  });
  const app = Fastify();
  installErrorHandlers(app, 1024);
  installBearerAuth(app, tenants);
  app.get('/api/whoami', async (request) => ({ tenant: request.tenant }));
  app.get('/api/doctor', { config: { operator: true } }, async () => ({}));
  const call = async (url: string, token: string) => {
    const response = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    return [response.statusCode, JSON.parse(response.body).error ?? JSON.parse(response.body).tenant];
  };

  expect(await call('/api/whoami', 'acme-token')).toEqual([200, 'acme']);
  expect(await call('/api/doctor', 'acme-token')).toEqual([404, 'NOT_FOUND']);
  purged.add('acme');
  expect(await call('/api/whoami', 'acme-token')).toEqual([401, 'UNAUTHORIZED']);
  expect(await call('/api/doctor', 'acme-token')).toEqual([401, 'UNAUTHORIZED']);
  expect(await call('/api/whoami', 'globex-token')).toEqual([200, 'globex']);
  purged.delete('acme');
  expect(await call('/api/whoami', 'acme-token')).toEqual([200, 'acme']);
  await app.close();
});
