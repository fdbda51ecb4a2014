// Calls one agent of this service over A2A 1.0 with the official @a2a-js/sdk (docs/agent-protocols.md):
// a blocking message, then a streamed follow-up in the same conversation.
//
//   A2A_AGENT_URL=http://localhost:3000/a2a/<projectId>/agents/<agentId>/ SVC_API_KEY=svc_… \
//     node docs/examples/a2a-client.ts
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

const agentUrl = process.env.A2A_AGENT_URL!; // the agent's endpoint, with a trailing slash
const apiKey = process.env.SVC_API_KEY!;

// Cards and calls both need the key: every request the SDK makes carries it.
const fetchImpl: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('Authorization', `Bearer ${apiKey}`);
  return fetch(input, { ...init, headers });
};
const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
const client = await factory.createFromUrl(agentUrl);
console.log(`card: ${(await client.getAgentCard()).name}`);

const message = (text: string, contextId = ''): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

// A blocking message: the task comes back completed (or input-required, or failed).
const task = await client.sendMessage({ tenant: '', message: message('Say hello.'), configuration: undefined, metadata: undefined });
if ('messageId' in task) throw new Error('expected a task');
const answer = task.artifacts[0]?.parts[0]?.content;
console.log(`task ${task.id}: ${TaskState[task.status!.state]}: ${answer?.$case === 'text' ? answer.value : ''}`);

// A streamed follow-up in the same conversation (contextId): the answer arrives as it is written.
let streamed = '';
for await (const event of client.sendMessageStream({
  tenant: '',
  message: message('And goodbye.', task.contextId),
  configuration: undefined,
  metadata: undefined,
})) {
  const payload = event.payload;
  if (payload?.$case === 'artifactUpdate' && !payload.value.lastChunk) {
    const piece = payload.value.artifact?.parts[0]?.content;
    const text = piece?.$case === 'text' ? piece.value : '';
    streamed = payload.value.append ? streamed + text : text;
  }
  if (payload?.$case === 'statusUpdate') console.log(`follow-up: ${TaskState[payload.value.status!.state]}: ${streamed}`);
}
