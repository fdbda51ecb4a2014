import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMutation } from '../../api/mutations.ts';
import { rowsOf } from '../../db/client.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { registeredRoutes, routeParameters, type Route } from '../support/routes.ts';

/**
 * Hostile input, generated (issue 16 point 5): every route gets `FUZZ_RUNS` requests (200 in
 * `npm test`, 10,000 with `npm run test:fuzz`) with generated path parameters, query strings,
 * bodies (JSON of any shape, or not JSON at all) and headers, from a principal that may do
 * anything. Each must be answered below 500 — a refusal with the error envelope and its request
 * id — without hanging (10 s: a pathological input takes far longer, a loaded host's pause never
 * does), and a refusal must write no row (row triggers on every table record
 * writes; API-key `lastUsedAt` bookkeeping excepted).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** An answer slower than this is a hang, not a slow host. */
const HANG_MS = 10_000;
/** Tables whose writes are bookkeeping of authentication itself, not the request's effect. */
const UNLOGGED_TABLES = ['api_keys', 'browser_sessions'];

// Built while the file is collected: `it.each` needs the route table before any hook runs.
const t: TestApp = await createTestApp({ env: { SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' } });
const routes: Route[] = registeredRoutes(t.app);
let key: string;
let projectId: string;
let writes = 0;

/** The last write recorded (0 for none yet). */
async function writeCount(): Promise<number> {
  const [row] = rowsOf<{ n: string | null }>(await t.database.db.execute(sql`select max(n) as n from fuzz_write_log`));
  return Number(row!.n ?? 0);
}

/** Refused requests checked together for writes (a window; its last case is reported). */
const CHECK_EVERY = 25;
let refusedSinceCheck = 0;

/** Null when no row was written since the last successful answer; else what was. */
async function refusedWrites(): Promise<string | null> {
  refusedSinceCheck = 0;
  const after = await writeCount();
  if (after === writes) return null;
  const tables = await tablesWrittenAfter(writes);
  writes = after;
  return `a refused request (this one or up to ${CHECK_EVERY - 1} before it on this route) wrote rows in ${tables.join(', ')}`;
}

async function tablesWrittenAfter(n: number): Promise<string[]> {
  return rowsOf<{ table_name: string }>(await t.database.db.execute(sql`select distinct table_name from fuzz_write_log where n > ${n}`)).map(
    (row) => row.table_name,
  );
}

beforeAll(async () => {
  const { context } = await t.login();
  projectId = context.project.id;
  key = (await t.createApiKey(['*'], 'fuzzer')).secret;
  // The key's first request creates its principal in the project (authentication bookkeeping).
  expect((await t.request('GET', '/v1/context', { apiKey: key })).status).toBe(200);
  // The OpenAPI document is built once, on its first request (api/routes/openapi.ts): that
  // one-time build is not an answer to the input, so it is paid here, before any is timed.
  expect((await t.request('GET', '/v1/openapi.json')).status).toBe(200);
  // A row trigger on every table: a write that commits leaves a row in fuzz_write_log; a
  // rolled-back one does not.
  await t.database.db.execute(
    sql.raw(`
    create table fuzz_write_log (n bigserial primary key, table_name text not null);
    create function fuzz_log_write() returns trigger language plpgsql as $$
    begin insert into fuzz_write_log (table_name) values (tg_table_name); return null; end $$;
    do $$ declare t record; begin
      for t in select tablename from pg_tables where schemaname = 'public' and tablename not in ('fuzz_write_log', ${UNLOGGED_TABLES.map((name) => `'${name}'`).join(', ')}) loop
        execute format('create trigger fuzz_log after insert or update or delete on %I for each row execute function fuzz_log_write()', t.tablename);
      end loop;
    end $$;
  `),
  );
  writes = await writeCount();
}, 60_000);
afterAll(() => t.close());

/** A path segment: well-formed ids, other tenants' ids, and hostile text (percent-encoded unless raw). */
const segment = fc.oneof(
  fc.uuid().map((id) => encodeURIComponent(id)),
  fc.constant('00000000-0000-0000-0000-000000000000'),
  fc.string({ unit: 'grapheme', maxLength: 80 }).map((text) => encodeURIComponent(text) || 'x'),
  fc.string({ minLength: 200, maxLength: 1_000 }).map((text) => encodeURIComponent(text) || 'x'),
  fc.constantFrom('%', '%zz', '%00', '..', '%2e%2e', '%C0%AE', 'a%2Fb', '%FF%FE', '-1', '1e999', 'null', 'undefined', '[]', '{}'),
);

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const body = fc.oneof(
  { weight: 4, arbitrary: jsonValue.map((value) => JSON.stringify(value)) },
  {
    weight: 3,
    arbitrary: fc
      .dictionary(
        fc.constantFrom(
          'name',
          'key',
          'displayName',
          'agentId',
          'initialMessage',
          'message',
          'config',
          'initialConfig',
          'status',
          'scopes',
          'files',
          'fence',
          'safeResult',
          'endpointUrl',
          'providerId',
          'model',
          'routing',
          'apiKey',
          'role',
          'projectId',
          'slug',
          'note',
          'limit',
          'cursor',
        ),
        jsonValue,
      )
      .map((value) => JSON.stringify(value)),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '{"a":1,"a":2}',
      '{"a":"\u0000"}',
      '[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]',
      '\uFEFF{}',
      '{"__proto__":{"x":1}}',
      'null',
      'true',
      '1e999',
    ),
  },
  // Strings of any UTF-16 code units (lone surrogates among them, which JSON.stringify escapes as
  // `"\ud800"`), and values nested 5,000 levels deep, under the fields routes read (issue 45).
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }).map((value) => JSON.stringify(value)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('name', 'initialMessage', 'message', 'title', 'safeResult', 'config', 'metadata', 'routing', 'settings', 'events')
      .chain((field) => fc.constantFrom(`{"${field}":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`, `{"${field}":"\\ud800"}`, `{"${field}":{"k\\udc00":1}}`)),
  },
);
const query = fc.dictionary(
  fc.oneof(
    fc.constantFrom('limit', 'cursor', 'status', 'runId', 'sessionId', 'agentId', 'state', 'kind', 'after', 'q', 'includeArchived', 'path'),
    fc.string({ maxLength: 20 }),
  ),
  fc.oneof(fc.string({ maxLength: 60 }), fc.integer().map(String), fc.constantFrom('-1', '0', '201', '1e3', 'NaN', '%', 'true')),
  { maxKeys: 4 },
);
const headers = fc.record(
  {
    'last-event-id': fc.oneof(fc.string({ maxLength: 60 }), fc.integer().map(String), fc.constantFrom('-1', '99999999999999999999', `${'9'.repeat(400)}`)),
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/json; charset=latin1',
      'multipart/form-data',
      'application/x-www-form-urlencoded',
      '',
    ),
    accept: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html'),
  },
  { requiredKeys: [] },
);

function pathFor(route: Route, values: string[]): string {
  let index = 0;
  // The project parameter stays the principal's own now and then, so the route's own checks run.
  return route.path.replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => {
    const value = values[index++] ?? 'x';
    return name === 'projectId' && value === 'own' ? projectId : value;
  });
}

describe('generated hostile input on every route', () => {
  it('covers every registered route', () => {
    expect(routes.length).toBeGreaterThan(40);
  });

  it.each(routes)(
    '$method $path',
    async (route) => {
      const parameters = routeParameters(route.path);
      const input = fc.record({
        segments: fc.tuple(
          ...parameters.map((name) =>
            name === 'projectId' ? fc.oneof({ weight: 3, arbitrary: fc.constant('own') }, { weight: 1, arbitrary: segment }) : segment,
          ),
        ),
        query,
        body,
        headers,
      });
      const failures: string[] = [];
      await fc
        .assert(
          fc.asyncProperty(input, async ({ segments, query: params, body: rawBody, headers: extra }) => {
            const search = new URLSearchParams(params).toString();
            const url = `${pathFor(route, segments as string[])}${search ? `?${search}` : ''}`;
            const began = performance.now();
            const response = await t.request(route.method, url, { apiKey: key, headers: extra, ...(isMutation(route.method) ? { rawBody } : {}) });
            // A stream (the event feed) or a download that did succeed is not read to its end.
            const text = response.status < 400 ? (await response.body?.cancel(), '') : await response.text();
            const elapsedMs = performance.now() - began;
            const problem = (() => {
              if (response.status >= 500) return `answered ${response.status}: ${text.slice(0, 200)}`;
              if (elapsedMs > HANG_MS) return `took ${elapsedMs.toFixed(0)} ms`;
              if (response.status >= 400) {
                let envelope: { error?: { code?: unknown; requestId?: unknown } } | null = null;
                try {
                  envelope = JSON.parse(text);
                } catch {
                  return `answered ${response.status} without a JSON envelope: ${text.slice(0, 200)}`;
                }
                if (typeof envelope?.error?.code !== 'string' || envelope.error.requestId !== response.headers.get('x-request-id'))
                  return `answered ${response.status} without the envelope: ${text.slice(0, 200)}`;
              }
              return null;
            })();
            // Refusals write nothing, so only an answer that succeeded moves the baseline; a write
            // seen after refusals alone is theirs (checked every few cases, and at the end).
            let failure = problem;
            if (response.status < 400) writes = await writeCount();
            else if (++refusedSinceCheck >= CHECK_EVERY) failure ??= await refusedWrites();
            if (failure)
              failures.push(`${route.method} ${url.slice(0, 300)} (${JSON.stringify(extra)}; body ${JSON.stringify(rawBody?.slice(0, 200))}): ${failure}`);
            return failure === null;
          }),
          { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
        )
        .catch((error: Error) => {
          throw new Error(`${failures.at(-1) ?? error.message}\n${error.message.split('\n').slice(0, 4).join('\n')}`);
        });
      expect(await refusedWrites()).toBeNull();
    },
    600_000,
  );
});
