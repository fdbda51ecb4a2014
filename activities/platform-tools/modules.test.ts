import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { httpGetTool } from './builtin/http-get.ts';
import { loadPlatformToolModules } from './modules.ts';

const options = { cwd: process.cwd(), allowPrivateNetwork: false };
const call = { runId: 'r1', toolCallId: 't1', signal: new AbortController().signal };

describe('platform tool modules (SVC_PLATFORM_TOOL_MODULES)', () => {
  it('registers each tool of a module and validates the input before the handler runs', async () => {
    const { handlers, problems } = await loadPlatformToolModules(['test/fixtures/platform-tools/word-count.ts', 'builtin:http_get'], options);
    expect(problems).toEqual([]);
    expect(Object.keys(handlers).sort()).toEqual(['always_fails', 'http_get', 'word_count']);
    expect(await handlers.word_count!({ ...call, arguments: { text: 'three short words' } })).toEqual({ status: 'success', value: { words: 3, runId: 'r1' } });
    expect(await handlers.word_count!({ ...call, arguments: { text: 3 } })).toEqual({
      status: 'failure',
      message: "The arguments do not match word_count's input schema: /text must be string",
    });
    expect(await handlers.always_fails!({ ...call, arguments: {} })).toEqual({ status: 'failure', message: 'the module says no' });
  });

  it('reports every problem on one line each', async () => {
    const { problems } = await loadPlatformToolModules(
      ['test/fixtures/platform-tools/word-count.ts', 'test/fixtures/platform-tools/broken.ts', 'test/fixtures/platform-tools/missing.ts', 'builtin:nope'],
      options,
    );
    const broken = 'SVC_PLATFORM_TOOL_MODULES: "test/fixtures/platform-tools/broken.ts"';
    expect(problems).toEqual([
      `${broken} tool 0: name must be 1-200 letters, digits, "_" and "-", starting with a letter or "_"`,
      `${broken} tool 1: "load_skill" is a name the platform's own tools use`,
      `${broken} tool 2: "mcp__x__y" is a name the platform's own tools use`,
      `${broken} tool 3 ("no_handler"): handler must be an async function`,
      expect.stringMatching(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} tool 4 \\("bad_schema"\\): inputSchema does not compile: `)),
      `${broken} tool 5: "word_count" is already registered by "test/fixtures/platform-tools/word-count.ts"`,
      expect.stringMatching(/^SVC_PLATFORM_TOOL_MODULES: "test\/fixtures\/platform-tools\/missing.ts" cannot be imported: /),
      'SVC_PLATFORM_TOOL_MODULES: "builtin:nope" is not a built-in (known: builtin:http_get)',
    ]);
  });
});

describe('builtin:http_get', () => {
  it('fetches under the address policy: loopback only with the development setting', async () => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from the page'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
    try {
      await expect(httpGetTool({ allowPrivateNetwork: false }).handler({ url }, call)).rejects.toThrow('the address is not allowed: loopback address');
      expect(await httpGetTool({ allowPrivateNetwork: true }).handler({ url }, call)).toEqual({
        status: 200,
        contentType: 'text/plain',
        text: 'hello from the page',
        truncated: false,
      });
      await expect(httpGetTool({ allowPrivateNetwork: true }).handler({ url: 'file:///etc/passwd' }, call)).rejects.toThrow('url must use http or https');
    } finally {
      server.close();
    }
  });
});
