import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleRoutes } from './routes.ts';

/** Serving the built console: the app's page, its assets, and nothing else from the disk. */
function bundle(): string {
  const dist = mkdtempSync(path.join(tmpdir(), 'svc-console-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/assets/app-1.js"></script>');
  writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
  writeFileSync(path.join(dist, 'secret.txt'), 'not an asset');
  return dist;
}
const routes = (dist: string) => consoleRoutes(() => ({ openapi: '3.1.0', info: { title: 't', version: '0' }, paths: {} }) as never, { dist });

describe('the console routes', () => {
  it("answers every console path with the app's page under a strict Content-Security-Policy", async () => {
    const app = routes(bundle());
    for (const url of ['/', '/agents', '/sessions/0b6c4f0e-7a1d-4c55-9d7e-2f3a4b5c6d7e']) {
      const response = await app.request(url);
      expect(response.status, url).toBe(200);
      expect(await response.text()).toContain('<div id="root">');
      const policy = response.headers.get('content-security-policy')!;
      expect(policy).toContain("script-src 'self';");
      expect(policy).not.toContain('unsafe-inline');
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('serves bundle assets cached for good, and refuses folders, other files and escapes', async () => {
    const app = routes(bundle());
    const asset = await app.request('/assets/app-1.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    for (const url of ['/assets/', '/assets/missing.js', '/assets/..%2fsecret.txt', '/assets/..%5csecret.txt']) {
      const response = await app.request(url);
      expect(response.status, url).toBe(404);
      expect(await response.text(), url).not.toContain('not an asset');
    }
    // `..` and `%2e%2e` are resolved by the URL itself (to /secret.txt): the app's page, never the file.
    for (const url of ['/assets/../secret.txt', '/assets/%2e%2e/secret.txt']) expect(await (await app.request(url)).text(), url).toContain('<div id="root">');
  });

  it('says how to build the console when there is no bundle, and leaves /v1 to the API', async () => {
    const app = routes(path.join(tmpdir(), `svc-console-none-${crypto.randomUUID()}`));
    expect(await (await app.request('/')).text()).toContain('The console has not been built');
    expect((await app.request('/v1/context')).status).toBe(404); // not answered here: the API's routes come next
  });
});
