import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLocalSandbox } from '../support/local-sandbox.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Skills in runs through the real worker (progressive disclosure): the model's instructions carry
 * the catalog of the session's bound Skill versions, `load_skill` returns one Skill's instructions
 * and files, a sandboxed session finds the files read-only in its workspace, and the bindings a
 * session copied at creation hold: a newer version changes nothing, a revoked one disappears.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const GUIDE = '# Guide\n\nSplit pages with `qpdf --split-pages`.\n';

beforeAll(async () => {
  // The storage test uses moto on 127.0.0.1, which only a server allowing private networks may reach.
  f = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
}, 120_000);
afterAll(() => f?.close());

async function skill(name: string, description: string, instructions: string) {
  const created = await f.call('POST', '/skills', {
    key: `${name}-${randomUUID().slice(0, 6)}`,
    displayName: name,
    name,
    description,
    instructions,
    files: [{ path: 'references/guide.md', contentType: 'text/markdown', dataBase64: b64(GUIDE) }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as string, versionId: created.body.versions[0].id as string };
}

async function agentWith(skillVersionIds: string[], sandbox?: Record<string, unknown>) {
  const agent = await f.call('POST', '/agents', {
    name: `Skilled ${randomUUID().slice(0, 6)}`,
    initialConfig: {
      systemPrompt: 'You are a document assistant.',
      modelPreset: 'fast',
      limits: { maxTurns: 8 },
      skillVersionIds,
      ...(sandbox ? { sandbox } : {}),
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body.id as string;
}

const requestAt = (index: number) => f.fakes.vendor_a.requests[index]!.body as { instructions: string; tools?: Array<{ name: string }> };
const toolOutputs = (index: number) =>
  ((f.fakes.vendor_a.requests[index]!.body as { input: Array<{ type?: string; output?: string }> }).input ?? [])
    .filter((item) => item.type === 'function_call_output')
    .map((item) => item.output!);

describe('Skills in runs', () => {
  it('the catalog is in the instructions and load_skill returns instructions, the file list and a file', async () => {
    const pdf = await skill('pdf-tools', 'Work with PDF files.', '# PDF tools\n\nRead references/guide.md first.\n');
    const notes = await skill('meeting-notes', 'Write meeting notes.', '# Notes\n\nUse bullet points.\n');
    const agentId = await agentWith([pdf.versionId, notes.versionId]);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'load_skill', arguments: { name: 'pdf-tools' } }] })
      .reply({ toolCalls: [{ name: 'load_skill', arguments: { name: 'pdf-tools', path: 'references/guide.md' } }] })
      .reply({ text: 'I know how to split PDFs now.' });
    const first = f.fakes.vendor_a.requests.length;
    const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Split this PDF.' });
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');

    const instructions = requestAt(first).instructions;
    expect(instructions).toContain('You are a document assistant.');
    expect(instructions).toContain('- pdf-tools: Work with PDF files.');
    expect(instructions).toContain('- meeting-notes: Write meeting notes.');
    expect(instructions).not.toContain('Use bullet points.'); // instructions only through the tool
    expect(requestAt(first).tools!.map((tool) => tool.name)).toContain('load_skill');

    const loaded = JSON.parse(toolOutputs(first + 1)[0]!);
    expect(loaded).toMatchObject({
      name: 'pdf-tools',
      instructions: '# PDF tools\n\nRead references/guide.md first.\n',
      files: [{ path: 'references/guide.md', contentType: 'text/markdown', sizeBytes: GUIDE.length }],
    });
    expect(JSON.parse(toolOutputs(first + 2)[1]!)).toMatchObject({ path: 'references/guide.md', text: GUIDE });

    const detail = await f.call('GET', `/sessions/${session.body.id}`);
    expect(detail.body.skills.map((entry: { name: string; status: string }) => [entry.name, entry.status])).toEqual([
      ['pdf-tools', 'active'],
      ['meeting-notes', 'active'],
    ]);
    expect(JSON.stringify(detail.body.skills)).not.toContain('PDF tools\n');
    const loads = detail.body.debug.productEvents.filter((event: { kind: string }) => event.kind === 'skill.loaded');
    expect(loads.map((event: { publicPayload: { name: string; path: string | null } }) => [event.publicPayload.name, event.publicPayload.path])).toEqual([
      ['pdf-tools', null],
      ['pdf-tools', 'references/guide.md'],
    ]);
    expect(JSON.stringify(loads)).not.toContain('qpdf');
  }, 60_000);

  it('a session keeps its bound versions: a newer version changes nothing, a revoked one disappears', async () => {
    const pdf = await skill('pdf-tools', 'Work with PDF files.', '# PDF tools v1\n');
    const notes = await skill('meeting-notes', 'Write meeting notes.', '# Notes\n');
    const agentId = await agentWith([pdf.versionId, notes.versionId]);
    f.fakes.vendor_a.reply({ text: 'Ready.' });
    const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Hello.' });
    await f.waitForRun(session.body.latestRunId);

    const newer = await f.call('POST', `/skills/${pdf.id}/versions`, {
      name: 'pdf-tools',
      description: 'Version two.',
      instructions: '# PDF tools v2\n',
      files: [],
    });
    expect(newer.status, JSON.stringify(newer.body)).toBe(201);
    expect((await f.call('PATCH', `/skills/${notes.id}/versions/${notes.versionId}/lifecycle`, { status: 'revoked' })).status).toBe(200);

    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'load_skill', arguments: { name: 'meeting-notes' } },
          { name: 'load_skill', arguments: { name: 'pdf-tools' } },
        ],
      })
      .reply({ text: 'Done.' });
    const first = f.fakes.vendor_a.requests.length;
    const followUp = await f.call('POST', `/sessions/${session.body.id}/runs`, { message: 'Take notes.' });
    expect(followUp.status, JSON.stringify(followUp.body)).toBe(202);
    expect((await f.waitForRun(followUp.body.id)).state).toBe('completed');

    const instructions = requestAt(first).instructions;
    expect(instructions).toContain('- pdf-tools: Work with PDF files.');
    expect(instructions).not.toContain('Version two.');
    expect(instructions).not.toContain('meeting-notes');
    const calls = (await f.call('GET', `/tool-calls?runId=${followUp.body.id}`)).body.data as Array<{
      safeArguments: { name: string };
      status: string;
      failure: { message: string } | null;
    }>;
    const byName = Object.fromEntries(calls.map((call) => [call.safeArguments.name, call]));
    expect(byName['meeting-notes']).toMatchObject({
      status: 'failed',
      failure: { message: 'The Skill "meeting-notes" was revoked and can no longer be used.' },
    });
    expect(byName['pdf-tools']!.status).toBe('succeeded');
    expect(JSON.stringify(toolOutputs(first + 1))).toContain('PDF tools v1');

    const detail = await f.call('GET', `/sessions/${session.body.id}`);
    expect(detail.body.skills.map((entry: { name: string; version: number; status: string }) => [entry.name, entry.version, entry.status])).toEqual([
      ['pdf-tools', 1, 'active'],
      ['meeting-notes', 1, 'revoked'],
    ]);
  }, 60_000);

  it('a sandboxed session finds the Skill files read-only in its workspace', async () => {
    const snapshotId = await connectLocalSandbox(f.call, { key: 'local', storageKey: 'skill-files' });
    const pdf = await skill('pdf-tools', 'Work with PDF files.', '# PDF tools\n');
    const agentId = await agentWith([pdf.versionId], {
      enabled: true,
      provider: 'local',
      snapshotId,
      network: 'none',
      capabilities: ['filesystem_read', 'shell'],
    });
    const script =
      'cat .svc/skills/pdf-tools/references/guide.md; head -2 .svc/skills/pdf-tools/SKILL.md; echo changed > .svc/skills/pdf-tools/references/guide.md || echo read-only';
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'bash', arguments: { command: script } }] }).reply({ text: 'Read it.' });
    const first = f.fakes.vendor_a.requests.length;
    const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Look at the Skill files.' });
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');
    expect(requestAt(first).instructions).toContain('.svc/skills/<name>/');
    const output = toolOutputs(first + 1)[0]!;
    expect(output).toContain('qpdf --split-pages');
    expect(output).toContain('name: pdf-tools');
    expect(output).toContain('read-only');
  }, 90_000);
});
