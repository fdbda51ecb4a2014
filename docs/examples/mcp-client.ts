// Calls this service's agents as MCP tools with the official @modelcontextprotocol/sdk client
// (docs/agent-protocols.md): lists them, calls one with progress notifications, then follows up
// in the same conversation.
//
//   MCP_URL=http://localhost:3000/mcp/<projectId> SVC_API_KEY=svc_… [MCP_TOOL=<agent key>] node docs/examples/mcp-client.ts
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'example', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(process.env.MCP_URL!), { requestInit: { headers: { Authorization: `Bearer ${process.env.SVC_API_KEY}` } } }),
);

// One tool per agent of the project, named after the agent's key.
const { tools } = await client.listTools();
console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
const tool = process.env.MCP_TOOL ?? tools[0]!.name;

// A call runs one turn; while the model writes, progress notifications carry the text.
const first = await client.callTool({ name: tool, arguments: { message: 'Say hello.' } }, undefined, {
  onprogress: (progress) => console.log(`progress: ${progress.progress} characters`),
  timeout: 300_000, // agents can take minutes; a client's own timeout cancels the run
});
const { answer, sessionId } = first.structuredContent as { answer: string; sessionId: string };
console.log(`answer: ${answer}`);

// The sessionId continues the conversation.
const next = await client.callTool({ name: tool, arguments: { message: 'And goodbye.', sessionId } });
console.log(`follow-up: ${(next.structuredContent as { answer: string }).answer}`);
await client.close();
