import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTypes } from '../../client/scripts/render-types.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * The client's types are generated from the service's OpenAPI document (issue 17 point 2):
 * client/src/api-types.ts must equal what the generator makes of the document served now, so
 * a route or shape change without regenerated types fails here (and `tsc`, run by
 * test/typecheck.test.ts, checks the client against them).
 */
const FILE = new URL('../../client/src/api-types.ts', import.meta.url);
let t: TestApp;
let document: any;

beforeAll(async () => {
  t = await createTestApp();
  document = await (await t.request('GET', '/v1/openapi.json')).json();
});
afterAll(() => t?.close());

describe('client/src/api-types.ts', () => {
  it('is generated from the current OpenAPI document', () => {
    const text = renderTypes(document);
    if (process.env.UPDATE_CLIENT_TYPES) writeFileSync(FILE, text);
    expect(readFileSync(FILE, 'utf8'), 'regenerate: UPDATE_CLIENT_TYPES=1 npx vitest run test/integration/client-types.test.ts').toBe(text);
  });

  it('types every operation of the document, with the shapes documented so far', () => {
    const text = readFileSync(FILE, 'utf8');
    const operations = Object.values(document.paths as Record<string, object>).reduce((count, methods) => count + Object.keys(methods).length, 0);
    expect(text.match(/^ {4}(get|post|put|patch|delete): \{$/gm)?.length).toBe(operations);
    expect(text).toContain(
      'state: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";',
    );
  });
});
