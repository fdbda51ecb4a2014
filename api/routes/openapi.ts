import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import type { RouterRoute } from 'hono/types';
import type { AppEnv } from '../env.ts';
import { openApiDocument } from '../openapi/document.ts';
import { route } from '../openapi/route-doc.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** `GET /openapi.json`: the OpenAPI 3.1 document of this app, from its routes' contracts. */
export function openApiRoutes(documentOf: () => Record<string, unknown>) {
  let document: string | null = null;
  return new Hono<AppEnv>().get(
    '/openapi.json',
    route({ summary: 'This API as an OpenAPI 3.1 document', scopes: 'public', responses: { 200: { description: 'The OpenAPI document' } } }),
    (c) => {
      document ??= JSON.stringify(documentOf());
      return c.body(document, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' });
    },
  );
}

/** The app's document, built once on first use (`routesOf` is read then, when every route is mounted). */
export function lazyOpenApiDocument(routesOf: () => RouterRoute[]): () => ReturnType<typeof openApiDocument> {
  let document: ReturnType<typeof openApiDocument> | null = null;
  return () => (document ??= openApiDocument(routesOf(), { version }));
}
