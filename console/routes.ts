import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { Hono } from 'hono';
import { CONSOLE_DIST } from './build.ts';
import { renderReference } from './reference.ts';

/** Scripts and styles come from the bundle only: nothing inline, nothing from elsewhere. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const REFERENCE_POLICY = "default-src 'self'; script-src 'none'; style-src 'self' 'unsafe-inline'";
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.html': 'text/html; charset=utf-8',
};

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Agent Runtime Service</title>
<p>The console has not been built. <code>npm start</code> builds it on first use; or run <code>node scripts/build-console.ts</code>. The API is at <code>/v1</code>; its reference at <a href="/reference">/reference</a>.</p></html>`;

/**
 * The browser console, served by the API process: the built bundle's files under `/assets/`
 * (content-hashed, cached for good) and the app's page for every other console path (the app
 * routes itself). `/reference` is the API reference rendered from the OpenAPI document.
 */
export function consoleRoutes(openApiDocument: () => Parameters<typeof renderReference>[0], options: { dist?: string } = {}) {
  const dist = options.dist ?? CONSOLE_DIST;
  let reference: string | null = null;
  const page = () => (existsSync(join(dist, 'index.html')) ? readFileSync(join(dist, 'index.html'), 'utf8') : NOT_BUILT);
  return new Hono()
    .get('/reference', (c) => {
      reference ??= renderReference(openApiDocument());
      c.header('Content-Security-Policy', REFERENCE_POLICY);
      return c.html(reference);
    })
    .get('/assets/*', (c) => {
      const path = normalize(c.req.path).replace(/^\/+/, '');
      const file = join(dist, path);
      if (!path.startsWith('assets/') || !file.startsWith(dist) || !existsSync(file) || !statSync(file).isFile()) return c.text('Not found', 404);
      c.header('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
      c.header('Cache-Control', 'public, max-age=31536000, immutable');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(readFileSync(file));
    })
    .get('*', async (c, next) => {
      // The API's own paths go on to its routes (and its 404 envelope).
      if (c.req.path === '/v1' || c.req.path.startsWith('/v1/')) return next();
      c.header('Cache-Control', 'no-store');
      c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Referrer-Policy', 'same-origin');
      return c.html(page());
    });
}
