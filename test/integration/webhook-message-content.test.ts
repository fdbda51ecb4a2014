import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningSecret, startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { startRunApp } from '../support/run-app.ts';
import { addNumbersTool } from '../support/platform-tools.ts';

/**
 * `includeMessageContent` (spec 3 rule 7) on real runs: `message.created` carries `message` for
 * the user's message and the assistant's final reply only — never for the tool-calling turn,
 * tool results, arguments or reasoning — and only for webhooks that opted in.
 */

let f: Awaited<ReturnType<typeof startRunApp>>;
let withContent: WebhookReceiver;
let without: WebhookReceiver;

const addNumbers = addNumbersTool;

beforeAll(async () => {
  f = await startRunApp({
    env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' },
    platformTools: { add_numbers: async ({ arguments: args }) => ({ status: 'success', value: { sum: (args as any).a + (args as any).b } }) },
  });
  withContent = await startWebhookReceiver();
  without = await startWebhookReceiver();
}, 120_000);
afterAll(async () => {
  await f?.close();
  await withContent?.close();
  await without?.close();
});

describe('webhook message content', () => {
  it('adds the message to message.created for the user message and the final reply only', async () => {
    const opted = await f.call('POST', '/event-webhooks', {
      displayName: 'With content',
      endpointUrl: withContent.url,
      signingSecret: newSigningSecret(),
      includeMessageContent: true,
    });
    const plain = await f.call('POST', '/event-webhooks', {
      displayName: 'Without',
      endpointUrl: without.url,
      signingSecret: newSigningSecret(),
      eventKinds: ['message.created'],
    });
    expect(opted.status).toBe(201);
    expect(plain.status).toBe(201);

    f.fakes.vendor_a
      .reply({ thinking: 'I should add.', text: 'Let me add those.', toolCalls: [{ name: 'add_numbers', arguments: { a: 20, b: 22 } }] })
      .reply({ text: 'The sum is 42.' });
    const agent = await f.call('POST', '/agents', {
      name: 'Adder',
      initialConfig: { systemPrompt: 'Use tools.', modelPreset: 'fast', tools: [addNumbers], limits: { maxTurns: 4 } },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'What is 20 + 22?' });
    const runId = session.body.latestRunId;
    expect((await f.waitForRun(runId)).state).toBe('completed');

    const messageEvents = async (receiver: WebhookReceiver) => {
      const events = () => receiver.requests.flatMap((request) => request.body.data.events).filter((event: any) => event.kind === 'message.created');
      await receiver.waitFor(() => events().length >= 4);
      return events();
    };
    // user, assistant (tool call), tool result, assistant (final reply)
    const opt = await messageEvents(withContent);
    expect(opt.map((event: any) => event.publicPayload.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(opt[0].message).toEqual({ id: opt[0].publicPayload.messageId ?? expect.any(String), runId, role: 'user', content: { text: 'What is 20 + 22?' } });
    expect(opt[1]).not.toHaveProperty('message');
    expect(opt[2]).not.toHaveProperty('message');
    expect(opt[3].message).toMatchObject({ runId, role: 'assistant', content: { text: 'The sum is 42.' } });
    const raw = withContent.requests.map((request) => request.rawBody).join('\n');
    for (const secretPart of ['I should add.', 'Let me add those.', '"a":20', '"sum":42']) expect(raw).not.toContain(secretPart);

    const plainEvents = await messageEvents(without);
    expect(plainEvents).toHaveLength(4);
    for (const event of plainEvents) expect(event).not.toHaveProperty('message');
    expect(without.requests.map((request) => request.rawBody).join('\n')).not.toContain('What is 20 + 22?');
  });
});
