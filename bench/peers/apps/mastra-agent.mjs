// The Mastra peer: two @mastra/core agents (one without tools, one with `lookup`) with Mastra
// memory on PostgreSQL (@mastra/pg), behind a minimal HTTP front so the bench drives it the same
// way as the other peers and can kill -9 it. Started by bench/peers/mastra.ts with PORT,
// DATABASE_URL, MODEL_BASE_URL and MODEL_API_KEY; runs from .peers/apps.
import { createServer } from 'node:http';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { Memory } from '@mastra/memory';
import { PostgresStore } from '@mastra/pg';
import { z } from 'zod';

const storage = new PostgresStore({ id: 'bench', connectionString: process.env.DATABASE_URL });
await storage.init();
const memory = new Memory({ storage, options: { lastMessages: 20 } });
const model = { providerId: 'openai', modelId: 'gpt-5.1', url: process.env.MODEL_BASE_URL, apiKey: process.env.MODEL_API_KEY, api: 'chat' };
const lookup = createTool({
  id: 'lookup',
  description: 'Looks up a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: async (input) => ({ city: input.city, population: 2_100_000 }),
});
const agents = {
  plain: new Agent({ id: 'plain', name: 'plain', instructions: 'You are a helpful assistant.', model, memory }),
  tool: new Agent({ id: 'tool', name: 'tool', instructions: 'You are a helpful assistant.', model, memory, tools: { lookup } }),
};

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const url = new URL(req.url, 'http://mastra');
    if (req.method === 'POST' && url.pathname === '/run') {
      const { threadId, message, tools } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const result = await agents[tools ? 'tool' : 'plain'].generate(message, { memory: { thread: threadId, resource: 'bench' }, maxSteps: 4 });
      return reply(res, 200, { text: result.text });
    }
    if (req.method === 'GET' && url.pathname.startsWith('/threads/')) {
      const threadId = decodeURIComponent(url.pathname.slice('/threads/'.length));
      const { messages } = await memory.recall({ threadId, resourceId: 'bench' });
      return reply(res, 200, { roles: messages.map((message) => message.role) });
    }
    reply(res, 404, { error: 'not found' });
  } catch (error) {
    reply(res, 500, { error: String(error?.stack ?? error) });
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('mastra peer listening'));

function reply(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
