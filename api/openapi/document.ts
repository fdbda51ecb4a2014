import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from '@valibot/to-json-schema';
import type { RouterRoute } from 'hono/types';
import { ERROR_CODES } from '../../domain/errors.ts';
import { isMutation } from '../mutations.ts';
import { NAMED_SHAPES } from './named-shapes.ts';
import { routeDocOf, takesIdempotencyKey, type RouteDoc, type Schema } from './route-doc.ts';

/** Served without authentication (api/middleware/auth.ts), so tools can fetch it as is. */
export const OPENAPI_ROUTE = 'GET /v1/openapi.json';

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown>;

/** A documented `/v1` operation: the method, the router's path pattern and its contract. */
export type DocumentedRoute = { method: string; path: string; doc: RouteDoc };

/** Every `/v1` route with its contract (the `route(...)` middleware among its handlers), once each. */
export function documentedRoutes(routes: RouterRoute[]): { documented: DocumentedRoute[]; undocumented: Array<{ method: string; path: string }> } {
  const byRoute = new Map<string, { method: string; path: string; doc?: RouteDoc }>();
  for (const entry of routes) {
    if (!entry.path.startsWith('/v1/') || entry.method === 'ALL' || entry.path === '/v1/*') continue;
    const id = `${entry.method} ${entry.path}`;
    const seen = byRoute.get(id) ?? { method: entry.method, path: entry.path };
    seen.doc ??= routeDocOf(entry.handler);
    byRoute.set(id, seen);
  }
  const documented: DocumentedRoute[] = [];
  const undocumented: Array<{ method: string; path: string }> = [];
  for (const { method, path, doc } of byRoute.values()) {
    if (doc) documented.push({ method, path, doc });
    else undocumented.push({ method, path });
  }
  return { documented, undocumented };
}

/** The OpenAPI path of a router pattern: `:name` → `{name}`, a trailing `*` → `{path}` (the rest of the path). */
export const openApiPath = (pattern: string) => pattern.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}').replace(/\/\*$/, '/{path}');

// Transforms and checks have no JSON Schema form: the document shows the accepted input shape.
const conversion: ConversionConfig = { target: 'draft-2020-12', errorMode: 'ignore' };
// Response shapes are named components; a shape inside another is a `$ref` to its component.
const namedConversion: ConversionConfig = { ...conversion, definitions: NAMED_SHAPES, overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}` };

const jsonSchema = (schema: Schema): JsonSchema => {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, conversion) as JsonSchema;
  return rest;
};

/** A response shape: a `$ref` to its component (the definitions go to `components.schemas`). */
const responseSchema = (schema: Schema): JsonSchema => {
  const { $schema: _schema, $defs: _defs, ...rest } = toJsonSchema(schema, namedConversion) as JsonSchema;
  return rest;
};

const isOptional = (schema: Schema) => (schema as { type?: string }).type === 'optional';

/**
 * The OpenAPI 3.1 document of the API, built from the routes' contracts (`route(...)`): every
 * operation with its scopes (security requirement and `x-required-scopes`), parameters and
 * request body from the very valibot schemas the route validates with, the Idempotency-Key
 * header on mutations, its success answers (JSON, SSE, file bytes) and the common error
 * envelope with every code.
 */
export function openApiDocument(routes: RouterRoute[], info: { version: string }) {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const { method, path, doc } of documentedRoutes(routes).documented) {
    const template = openApiPath(path);
    (paths[template] ??= {})[method.toLowerCase()] = operation(method, path, doc);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent runtime service API',
      version: info.version,
      description:
        'Sessions, durable runs, caller tools, approvals, the event feed and the configuration of a self-hosted agent runtime. Every mutation needs an `Idempotency-Key`; errors share one envelope.',
    },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (`svc_...`) as `Authorization: Bearer <key>`' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: 'A browser session; mutations also need the allowed `Origin`' },
      },
      schemas: {
        ...toJsonSchemaDefs(NAMED_SHAPES, namedConversion),
        ErrorEnvelope: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'requestId'],
              properties: {
                code: { type: 'string', enum: [...ERROR_CODES] },
                message: { type: 'string' },
                requestId: { type: 'string' },
                details: { type: 'object' },
              },
            },
          },
        },
      },
      responses: {
        Error: {
          description:
            'The error envelope (`400` bad_request, `401` unauthenticated, `403` forbidden, `404` not_found, `409` conflict or ' +
            'idempotency_conflict, `410` cursor_expired (an event cursor older than the retained events), `429` rate_limited with ' +
            '`Retry-After`, `503` service_unavailable with `Retry-After`, `500` internal_error)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
  };
}

function operation(method: string, path: string, doc: RouteDoc): Operation {
  const parameters: Array<Record<string, unknown>> = [];
  const paramSchemas = doc.params ? ((jsonSchema(doc.params).properties ?? {}) as Record<string, JsonSchema>) : {};
  for (const match of path.matchAll(/:(\w+)(\{[^}]*\})?/g)) {
    const name = match[1]!;
    // Every id in a path is a UUID (the auth middleware checks the project's; routes their own).
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: paramSchemas[name] ?? (name.endsWith('Id') ? { type: 'string', format: 'uuid' } : { type: 'string' }),
    });
  }
  if (path.endsWith('/*'))
    parameters.push({ name: 'path', in: 'path', required: true, description: 'The rest of the path (may contain `/`)', schema: { type: 'string' } });
  if (doc.query) {
    const query = jsonSchema(doc.query);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
  }
  for (const [name, header] of Object.entries(doc.headers ?? {}))
    parameters.push({ name, in: 'header', required: false, description: header, schema: { type: 'string' } });
  const idempotent = isMutation(method) && takesIdempotencyKey(doc);
  if (idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description:
        'At most 200 characters, scoped to principal and route; a replay within 24 hours returns the stored answer with `Idempotency-Replayed: true`',
      schema: { type: 'string', minLength: 1, maxLength: 200 },
    });
  }

  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    const content =
      response.content === 'event-stream'
        ? { 'text/event-stream': { schema: { type: 'string' } } }
        : response.content === 'file'
          ? { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } }
          : Number(status) >= 300 && Number(status) < 400
            ? undefined
            : { 'application/json': { schema: response.schema ? responseSchema(response.schema) : { type: 'object' } } };
    responses[status] = { description: response.description, ...(content ? { content } : {}) };
  }
  const errorStatuses = [
    '400',
    ...(doc.scopes === 'public' ? [] : ['401']),
    '403',
    ...(parameters.some((p) => p.in === 'path') ? ['404'] : []),
    ...(isMutation(method) ? ['409'] : []),
    '429',
    '500',
    '503',
  ];
  for (const status of errorStatuses) responses[status] = { $ref: '#/components/responses/Error' };

  const scopes = doc.scopes === 'public' ? null : [...doc.scopes];
  return {
    summary: doc.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body ? { requestBody: { required: !isOptional(doc.body), content: { 'application/json': { schema: jsonSchema(doc.body) } } } } : {}),
    responses,
    security: scopes === null ? [] : [{ apiKey: scopes }, { sessionCookie: scopes }],
    ...(scopes === null ? {} : { 'x-required-scopes': scopes }),
    ...(idempotent ? { 'x-idempotent': true } : {}),
  };
}
