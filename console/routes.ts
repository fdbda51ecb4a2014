import { readFileSync } from 'node:fs';
import { Hono } from 'hono';

const indexHtml = readFileSync(new URL('./index.html', import.meta.url), 'utf8');

/** The browser console, served by the API process at `/`. It talks to the same `/v1` API. */
export function consoleRoutes() {
  return new Hono().get('/', (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('Content-Security-Policy', "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'");
    return c.html(indexHtml);
  });
}
