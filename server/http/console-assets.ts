import { existsSync } from 'node:fs';
import * as path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { repoPath } from '../../runtime/repo-root';
import type { ApiError } from './api-schemas';

/** Where `npm run build:console` writes the console (console/vite.config.mts); git-ignored. */
export const CONSOLE_DIST = repoPath('console', 'dist');

/*
 * The console's page may load without a token (it holds no data: every datum comes from the API with the bearer
 * token the person signs in with), so its files are public routes. The policy allows scripts, styles, fonts and
 * fetches from this origin only: no inline script or style, no other origin, no framing, no plugins.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

// Vite names every asset by its content hash (index-CSFcaNdK.js): such a URL never changes content, so it may be
// cached for a year; index.html names the current hashes, so it is revalidated on every load.
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * GET / (and /index.html) and GET /assets/* of the built console, with the headers above. Files are read per request,
 * so a rebuild while the server runs is served at once. Only `/`, `/index.html` and `/assets/` are the console's: any
 * other path still reaches the API's own 401/404, so the API cannot be probed anonymously. Without a build, GET /
 * says how to make one.
 */
export function consoleAssets(root: string = CONSOLE_DIST): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true };
      // Files, not API operations: kept out of /openapi.json.
      route.schema = { ...(route.schema ?? {}), hide: true };
    });
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(SECURITY_HEADERS);
      return payload;
    });
    if (!existsSync(path.join(root, 'index.html'))) {
      app.get('/', async (_request, reply) =>
        reply.code(503).type('text/plain; charset=utf-8').send(`the console is not built (no ${root}/index.html); run: npm run build:console`),
      );
      return;
    }
    const assets = path.join(root, 'assets');
    const setHeaders = (response: { setHeader(name: string, value: string): unknown }, filePath: string) => {
      response.setHeader('cache-control', filePath.startsWith(`${assets}${path.sep}`) ? IMMUTABLE : REVALIDATE);
    };
    await app.register(async (folder) => {
      // A missing asset is a plain 404 (the API's not-found handler would offer another method for a known path).
      folder.setNotFoundHandler((request, reply) =>
        reply.code(404).send({ error: 'NOT_FOUND', message: `no console asset ${request.url.split('?')[0]?.slice(0, 120) ?? ''}` } satisfies ApiError),
      );
      await folder.register(fastifyStatic, { root: assets, index: false, cacheControl: false, setHeaders });
    }, { prefix: '/assets' });
    await app.register(async (page) => {
      // serve: false: only reply.sendFile, for the two names of the page.
      await page.register(fastifyStatic, { root, serve: false, cacheControl: false, setHeaders });
      const index = async (_request: unknown, reply: FastifyReply) => reply.sendFile('index.html');
      page.get('/', index);
      page.get('/index.html', index);
    });
  };
}
