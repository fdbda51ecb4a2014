import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { renderReference } from './reference.ts';

const indexHtml = readFileSync(new URL('./index.html', import.meta.url), 'utf8');
const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'";

/**
 * The browser console, served by the API process at `/`. It talks to the same `/v1` API;
 * `/reference` is the API reference rendered from the OpenAPI document (`openApiDocument`).
 */
export function consoleRoutes(openApiDocument: () => Parameters<typeof renderReference>[0]) {
  let reference: string | null = null;
  return new Hono()
    .get('/', (c) => {
      c.header('Cache-Control', 'no-store');
      c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      return c.html(indexHtml);
    })
    .get('/reference', (c) => {
      reference ??= renderReference(openApiDocument());
      c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      return c.html(reference);
    });
}
