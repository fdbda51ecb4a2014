import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, productEvents } from '../../db/schema/index.ts';
import { startMcpFixtureServer, type McpFixtureServer } from '../fixtures/mcp/server.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * MCP tools in runs through the real worker: the model (a fake vendor at the wire) calls
 * `mcp__<namespace>__<tool>`, the platform-tool activity calls the real MCP fixture server with
 * the policy's credential, and the result goes back to the model. Every failure is a tool error
 * the model sees; the run always settles.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let fixture: McpFixtureServer;
let serverVersionId: string;
const BEARER = 'mcp-run-bearer-0001';

beforeAll(async () => {
  fixture = await startMcpFixtureServer();
  fixture.requireHeader('authorization', `Bearer ${BEARER}`);
  f = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  const server = await f.call('POST', '/mcp-servers', {
    key: 'fixture',
    displayName: 'Fixture',
    endpointUrl: fixture.streamableUrl,
    transport: 'streamable_http',
  });
  const { version } = await policy();
  const discovered = await f.call('POST', `/mcp-servers/${server.body.id}/discover`, { credentialPolicyVersionId: version.id });
  expect(discovered.status, JSON.stringify(discovered.body)).toBe(201);
  serverVersionId = discovered.body.version.id;
}, 120_000);
afterAll(async () => {
  await f?.close();
  await fixture?.close();
});

/** A credential and a policy version for it on the fixture's origin. */
async function policy(limits: { timeoutMs?: number; maximumResponseBytes?: number; exactOrigin?: string } = {}) {
  const suffix = randomUUID().slice(0, 8);
  const credential = await f.call('POST', '/mcp-credentials', { key: `cred-${suffix}`, displayName: 'Fixture token', kind: 'static_bearer', secret: BEARER });
  expect(credential.status, JSON.stringify(credential.body)).toBe(201);
  const version = await f.call('POST', '/mcp-credential-policies', {
    key: `policy-${suffix}`,
    displayName: 'Fixture',
    credentialId: credential.body.id,
    exactOrigin: limits.exactOrigin ?? fixture.url,
    pathPrefix: '/mcp',
    timeoutMs: limits.timeoutMs ?? 5_000,
    maximumResponseBytes: limits.maximumResponseBytes ?? 65_536,
  });
  expect(version.status, JSON.stringify(version.body)).toBe(201);
  return { credential: credential.body, version: version.body };
}

/** An agent bound to a toolset of the fixture's tools under namespace `crm`. */
async function agentWith(input: { policyVersionId: string; tools?: Array<{ remoteToolName: string; approval?: 'never' | 'always' }> }) {
  const toolset = await f.call('POST', '/mcp-toolsets', {
    key: `ts-${randomUUID().slice(0, 8)}`,
    displayName: 'Fixture tools',
    serverVersionId,
    tools: input.tools ?? [{ remoteToolName: 'echo' }, { remoteToolName: 'slow' }, { remoteToolName: 'big' }, { remoteToolName: 'fail' }],
  });
  expect(toolset.status, JSON.stringify(toolset.body)).toBe(201);
  const agent = await f.call('POST', '/agents', {
    name: `MCP ${randomUUID().slice(0, 8)}`,
    initialConfig: {
      systemPrompt: 'Use the CRM.',
      modelPreset: 'fast',
      limits: { maxTurns: 6 },
      mcpBindings: [{ toolsetVersionId: toolset.body.latestVersionId, credentialPolicyVersionId: input.policyVersionId, namespace: 'crm' }],
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body.id as string;
}

async function runOf(agentId: string, message: string, apiKey?: string) {
  const session = await f.call('POST', '/sessions', { agentId, initialMessage: message }, apiKey ? { apiKey } : {});
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  return session.body.latestRunId as string;
}

async function toolCallsOf(runId: string) {
  const list = await f.call('GET', `/tool-calls?runId=${runId}`);
  expect(list.status).toBe(200);
  return list.body.data as Array<Record<string, any>>;
}

const lastModelRequest = () => JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body);

describe('MCP tools in runs', () => {
  it('the model calls mcp__crm__echo with the remote schema and gets the remote result', async () => {
    const { version } = await policy();
    const agentId = await agentWith({ policyVersionId: version.id });
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'mcp__crm__echo', arguments: { text: 'hello from the model' } }] }).reply({ text: 'The CRM said hello.' });
    const before = f.fakes.vendor_a.requests.length;
    const calls = fixture.toolCalls.length;
    const runId = await runOf(agentId, 'Ask the CRM.');
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('completed');

    // The model saw the remote tools under their mounted names, with the server's input schema.
    const first = f.fakes.vendor_a.requests[before]!.body as { tools: Array<{ name: string; parameters?: unknown }> };
    expect(first.tools.map((tool) => tool.name).sort()).toEqual(['mcp__crm__big', 'mcp__crm__echo', 'mcp__crm__fail', 'mcp__crm__slow']);
    expect(JSON.stringify(first.tools.find((tool) => tool.name === 'mcp__crm__echo'))).toContain('What to echo');
    // The server got one call, with the policy's credential.
    expect(fixture.toolCalls.slice(calls).map((call) => [call.name, call.arguments, call.headers.authorization])).toEqual([
      ['echo', { text: 'hello from the model' }, `Bearer ${BEARER}`],
    ]);
    // The result went back to the model, and the call's debug record says how it ran.
    expect(lastModelRequest()).toContain('hello from the model');
    const [call] = await toolCallsOf(runId);
    expect(call).toMatchObject({ toolName: 'mcp__crm__echo', owner: 'platform', status: 'succeeded', failure: null });
    expect(call!.safeResult.value).toEqual({ content: [{ type: 'text', text: 'hello from the model' }] });
    expect(call!.execution).toMatchObject({
      kind: 'mcp',
      serverKey: 'fixture',
      serverVersion: 2,
      remoteToolName: 'echo',
      namespace: 'crm',
      credentialPolicyVersionId: version.id,
      credentialVersion: 1,
      failureReason: null,
    });
    const stored = JSON.stringify(
      [await f.t.database.db.select().from(messages).where(eq(messages.runId, runId)), await f.t.database.db.select().from(productEvents)],
      (_key, value) => (typeof value === 'bigint' ? value.toString() : value),
    );
    expect(stored).not.toContain(BEARER);
  }, 60_000);

  it('a toolset entry with approval waits for the decision and calls the server only after approve', async () => {
    const { version } = await policy();
    const agentId = await agentWith({ policyVersionId: version.id, tools: [{ remoteToolName: 'echo', approval: 'always' }] });
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'mcp__crm__echo', arguments: { text: 'approved text' } }] }).reply({ text: 'Done.' });
    const calls = fixture.toolCalls.length;
    const runId = await runOf(agentId, 'Ask, carefully.');
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_approval');
    expect(fixture.toolCalls.length).toBe(calls);
    const approvals = await f.call('GET', `/approvals?runId=${runId}`);
    expect((await f.call('POST', `/approvals/${approvals.body.data[0].id}/decision`, { status: 'approved' })).status).toBe(200);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    expect(fixture.toolCalls.slice(calls).map((call) => call.arguments)).toEqual([{ text: 'approved text' }]);
  }, 60_000);
});

describe('MCP call failures are tool errors, never stuck runs', () => {
  /** Runs one MCP call and answers after it; returns the failed call. */
  async function failedCall(agentId: string, toolCall: { name: string; arguments: unknown }, apiKey?: string) {
    f.fakes.vendor_a.reply({ toolCalls: [toolCall] }).reply({ text: 'The tool failed; I told the user.' });
    const runId = await runOf(agentId, 'Try it.', apiKey);
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('completed');
    const [call] = await toolCallsOf(runId);
    expect(call!.status).toBe('failed');
    // The model saw the error on its next turn.
    expect(lastModelRequest()).toContain(call!.failure.message.split('"')[0]!.slice(0, 40));
    return call!;
  }

  it('a revoked credential: nothing is sent', async () => {
    const { credential, version } = await policy();
    const agentId = await agentWith({ policyVersionId: version.id });
    await f.call('DELETE', `/mcp-credentials/${credential.id}`);
    const calls = fixture.toolCalls.length;
    const call = await failedCall(agentId, { name: 'mcp__crm__echo', arguments: { text: 'x' } });
    expect(call.failure).toMatchObject({ code: 'platform_tool_failed', reason: 'credential_revoked' });
    expect(call.execution).toMatchObject({ failureReason: 'credential_revoked', credentialVersion: null });
    expect(fixture.toolCalls.length).toBe(calls);
  }, 60_000);

  it("the run creator's mcp:execute scope is checked live", async () => {
    const { version } = await policy();
    const agentId = await agentWith({ policyVersionId: version.id });
    const noExecute = (await f.t.createApiKey(['agent:read', 'session:read', 'session:write', 'run:create', 'run:read'], `no-mcp-${randomUUID().slice(0, 6)}`))
      .secret;
    const calls = fixture.requests.length;
    const call = await failedCall(agentId, { name: 'mcp__crm__echo', arguments: { text: 'x' } }, noExecute);
    expect(call.failure).toMatchObject({ code: 'platform_tool_failed', reason: 'scope_missing' });
    expect(fixture.requests.length).toBe(calls);

    // A key that held the scope when the run started but was revoked before the call.
    const revocable = await f.t.createApiKey(
      ['agent:read', 'session:read', 'session:write', 'run:create', 'run:read', 'mcp:execute'],
      `mcp-${randomUUID().slice(0, 6)}`,
    );
    const gated = await agentWith({ policyVersionId: version.id, tools: [{ remoteToolName: 'echo', approval: 'always' }] });
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'mcp__crm__echo', arguments: { text: 'late' } }] }).reply({ text: 'Could not.' });
    const runId = await runOf(gated, 'Go.', revocable.secret);
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_approval');
    expect((await f.call('DELETE', `/api-keys/${revocable.id}`)).status).toBe(200);
    const approvals = await f.call('GET', `/approvals?runId=${runId}`);
    await f.call('POST', `/approvals/${approvals.body.data[0].id}/decision`, { status: 'approved' });
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const [late] = await toolCallsOf(runId);
    expect(late!.failure).toMatchObject({ reason: 'scope_missing' });
  }, 90_000);

  it('an oversize response and a slow server fail the call within the policy limits', async () => {
    const small = await policy({ maximumResponseBytes: 2_048, timeoutMs: 1_000 });
    const agentId = await agentWith({ policyVersionId: small.version.id });
    const oversize = await failedCall(agentId, { name: 'mcp__crm__big', arguments: { bytes: 50_000 } });
    expect(oversize.failure).toMatchObject({ code: 'platform_tool_failed', reason: 'response_too_large' });
    // The server would answer after 15 s; the policy's 1 s deadline cuts the call (the bound is
    // the subject: ten times the deadline, two thirds of the server's delay).
    const slow = await failedCall(agentId, { name: 'mcp__crm__slow', arguments: { ms: 15_000 } });
    expect(slow.failure).toMatchObject({ code: 'platform_tool_failed', reason: 'timeout' });
    expect(slow.execution.durationMs).toBeLessThan(10_000);
  }, 60_000);

  it('a remote tool error is tool_failed with the tool text', async () => {
    const { version } = await policy();
    const agentId = await agentWith({ policyVersionId: version.id });
    const call = await failedCall(agentId, { name: 'mcp__crm__fail', arguments: {} });
    expect(call.failure).toMatchObject({ code: 'tool_failed', reason: 'remote_error' });
    expect(call.failure.message).toContain('the fixture tool failed on purpose');
  }, 60_000);

  it('a server that is gone: connection_failed', async () => {
    const gone = await startMcpFixtureServer();
    const goneServer = await f.call('POST', '/mcp-servers', {
      key: `gone-${randomUUID().slice(0, 6)}`,
      displayName: 'Gone',
      endpointUrl: gone.streamableUrl,
      transport: 'streamable_http',
    });
    const discovered = await f.call('POST', `/mcp-servers/${goneServer.body.id}/discover`);
    const toolset = await f.call('POST', '/mcp-toolsets', {
      key: `gone-${randomUUID().slice(0, 6)}`,
      displayName: 'Gone',
      serverVersionId: discovered.body.version.id,
      tools: [{ remoteToolName: 'echo' }],
    });
    const { version } = await policy({ exactOrigin: gone.url });
    const agent = await f.call('POST', '/agents', {
      name: `Gone ${randomUUID().slice(0, 6)}`,
      initialConfig: {
        systemPrompt: 'x',
        modelPreset: 'fast',
        limits: { maxTurns: 4 },
        mcpBindings: [{ toolsetVersionId: toolset.body.latestVersionId, credentialPolicyVersionId: version.id, namespace: 'crm' }],
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    await gone.close();
    const call = await failedCall(agent.body.id, { name: 'mcp__crm__echo', arguments: { text: 'anyone?' } });
    expect(call.failure).toMatchObject({ code: 'platform_tool_failed', reason: 'connection_failed' });
  }, 60_000);
});

describe('publication', () => {
  it('refuses a binding whose policy does not contain the server endpoint, and nothing is sent', async () => {
    const requests = fixture.requests.length;
    const elsewhere = await policy({ exactOrigin: 'https://elsewhere.example.com' });
    const toolset = await f.call('POST', '/mcp-toolsets', {
      key: `ts-${randomUUID().slice(0, 8)}`,
      displayName: 'x',
      serverVersionId,
      tools: [{ remoteToolName: 'echo' }],
    });
    const refused = await f.call('POST', '/agents', {
      name: 'Elsewhere',
      initialConfig: {
        systemPrompt: 'x',
        modelPreset: 'fast',
        limits: { maxTurns: 2 },
        mcpBindings: [{ toolsetVersionId: toolset.body.latestVersionId, credentialPolicyVersionId: elsewhere.version.id, namespace: 'crm' }],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.path).toBe('body.initialConfig.mcpBindings[0].credentialPolicyVersionId');
    expect(fixture.requests.length).toBe(requests);

    const bindOnly = (await f.t.createApiKey(['agent:write', 'agent:read'], `no-bind-${randomUUID().slice(0, 6)}`)).secret;
    const { version } = await policy();
    const noScope = await f.call(
      'POST',
      '/agents',
      {
        name: 'No bind',
        initialConfig: {
          systemPrompt: 'x',
          modelPreset: 'fast',
          limits: { maxTurns: 2 },
          mcpBindings: [{ toolsetVersionId: toolset.body.latestVersionId, credentialPolicyVersionId: version.id, namespace: 'crm' }],
        },
      },
      { apiKey: bindOnly },
    );
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.message).toContain('mcp:bind');
  }, 60_000);
});
