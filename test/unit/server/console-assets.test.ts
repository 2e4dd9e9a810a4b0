import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Fastify from 'fastify';
import { installBearerAuth } from '../../../server/http/bearer-auth';
import { CONSOLE_CSP, consoleAssets } from '../../../server/http/console-assets';
import { installErrorHandlers } from '../../../server/http/error-handler';
import { createTenantDirectory } from '../../../server/http/tenant-directory';
import { hashToken } from '../../../server/http/token-auth';

/*
 * How `ragtime serve` serves the console's build (server/http/console-assets.ts): the headers of each kind of file,
 * the routes being public, and the answer when nothing was built. The browser test drives the real build.
 */

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'ragtime-console-assets-'));
  mkdirSync(path.join(root, 'assets'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/index-AbC123.js"></script>');
  writeFileSync(path.join(root, 'assets', 'index-AbC123.js'), 'console.log(1)');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function serve(dir: string) {
  const app = Fastify();
  await app.register(consoleAssets(dir));
  await app.ready();
  return { app };
}

test('index.html is no-cache, hashed assets immutable, both under the CSP with nosniff and no framing', async () => {
  const { app } = await serve(root);
  const index = await app.inject({ url: '/' });
  expect(index.statusCode).toBe(200);
  expect(index.headers['cache-control']).toBe('no-cache');
  expect(index.headers['content-security-policy']).toBe(CONSOLE_CSP);
  expect(index.headers['x-content-type-options']).toBe('nosniff');
  expect(index.headers['x-frame-options']).toBe('DENY');
  const asset = await app.inject({ url: '/assets/index-AbC123.js' });
  expect(asset.statusCode).toBe(200);
  expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
  await app.close();
});

test('the policy allows this origin only: no inline script or style, no other host, no framing', () => {
  expect(CONSOLE_CSP).toMatchInlineSnapshot(`"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"`);
});

test('/, /index.html and /assets/* are public; any other path still needs the token', async () => {
  // The API's own bearer check (installBearerAuth) in front, as in createHttpServer.
  const owners = new Map<string, string>();
  const tenants = createTenantDirectory({
    tokens: [{ tenant: 'acme', sha256: hashToken('acme-token') }],
    owners: {
      claim: async (sessionId, tenant) => owners.get(sessionId) ?? (owners.set(sessionId, tenant), tenant),
      ownerOf: async (sessionId) => owners.get(sessionId) ?? null,
      sessionsOf: async (tenant) => [...owners].filter(([, owner]) => owner === tenant).map(([sessionId]) => sessionId),
      close: async () => undefined,
    },
    defaultKb: 'kb',
  });
  const app = Fastify();
  installErrorHandlers(app, 1024);
  installBearerAuth(app, tenants);
  await app.register(consoleAssets(root));
  for (const url of ['/', '/index.html', '/assets/index-AbC123.js']) expect((await app.inject({ url })).statusCode).toBe(200);
  expect((await app.inject({ url: '/assets/none.js' })).statusCode).toBe(404); // the public folder, nothing more
  expect((await app.inject({ url: '/api/kbs' })).statusCode).toBe(401);
  expect((await app.inject({ url: '/other' })).statusCode).toBe(401);
  expect((await app.inject({ url: '/other', headers: { authorization: 'Bearer acme-token' } })).statusCode).toBe(404);
  await app.close();
});

test('a rebuild while the server runs is served at once (files are read per request)', async () => {
  const { app } = await serve(root);
  writeFileSync(path.join(root, 'assets', 'index-New456.js'), 'console.log(2)');
  const fresh = await app.inject({ url: '/assets/index-New456.js' });
  expect(fresh.statusCode).toBe(200);
  expect(fresh.body).toBe('console.log(2)');
  await app.close();
});

test('without a build, GET / says how to make one (503)', async () => {
  const empty = mkdtempSync(path.join(os.tmpdir(), 'ragtime-console-empty-'));
  const { app } = await serve(empty);
  const response = await app.inject({ url: '/' });
  expect(response.statusCode).toBe(503);
  expect(response.body).toContain('run: npm run build:console');
  await app.close();
  rmSync(empty, { recursive: true, force: true });
});
