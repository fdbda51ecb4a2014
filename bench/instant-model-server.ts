import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The settings variable that points vendor_a (OpenAI Responses API) at a base URL. */
export const VENDOR_A_BASE_URL_ENV = 'SVC_MODEL_BASE_URL_VENDOR_A';
/** Any key of OpenAI's shape; the server accepts every bearer key. */
export const INSTANT_MODEL_API_KEY = 'sk-proj-bench-instant-model-key';

const USAGE = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 14 };

export type InstantModelServer = { baseUrl: string; close(): Promise<void> };

/**
 * The benchmarks' model: an OpenAI Responses API endpoint on 127.0.0.1 that answers every
 * `POST /v1/responses` at once (and `GET /v1/models` with the one model the bench presets name),
 * so a measured turn is the runtime's own time. A user message `call <tool> [<JSON arguments>]`
 * is answered with a call of that tool, and a request carrying the tool's output with a short text
 * reply; anything else gets the text reply. The test suite's scriptable fakes
 * (`test/fixtures/model-servers/`) stay with the tests.
 */
export async function startInstantModelServer(): Promise<InstantModelServer> {
  let seq = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://instant').pathname;
      if (req.method === 'GET' && path === '/v1/models') {
        return send(res, 200, { object: 'list', data: [{ id: 'gpt-5.1', object: 'model', created: 1762800000, owned_by: 'system' }] });
      }
      if (req.method !== 'POST' || path !== '/v1/responses') return send(res, 404, { error: { message: `No route for ${req.method} ${path}`, type: 'invalid_request_error', param: null, code: null } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { model?: string; input?: Array<{ type?: string; role?: string; content?: unknown }> };
      seq += 1;
      const input = body.input ?? [];
      const lastUser = input.findLastIndex((item) => item.role === 'user');
      const answered = input.slice(lastUser + 1).some((item) => item.type === 'function_call_output');
      const asked = typeof input[lastUser]?.content === 'string' ? /^call (\S+)(?: (\{.*\}))?$/s.exec(input[lastUser].content as string) : null;
      if (asked && !answered) {
        return send(res, 200, {
          id: `resp_${seq}`,
          object: 'response',
          created_at: Math.floor(Date.now() / 1000),
          status: 'completed',
          model: body.model ?? 'gpt-5.1',
          output: [{ type: 'function_call', id: `fc_${seq}`, call_id: `call_${seq}`, name: asked[1], arguments: asked[2] ?? '{}', status: 'completed' }],
          incomplete_details: null,
          usage: USAGE,
        });
      }
      send(res, 200, {
        id: `resp_${seq}`,
        object: 'response',
        created_at: Math.floor(Date.now() / 1000),
        status: 'completed',
        model: body.model ?? 'gpt-5.1',
        output: [{ type: 'message', id: `msg_${seq}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }],
        incomplete_details: null,
        usage: USAGE,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
