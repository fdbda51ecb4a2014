import { describe, expect, it } from 'vitest';
import { cmaEventId, cmaEventsOf, productEventIdOf, toolCallIdsOf, type EventFacts, type EventSource, type ToolCallFacts } from './events.ts';

const at = new Date('2026-11-27T10:00:00.000Z');
const source = (
  kind: string,
  publicPayload: Record<string, unknown>,
  message: Record<string, unknown> | null = null,
  id = '11111111-1111-4111-8111-111111111111',
): EventSource => ({ id, kind, publicPayload, message, occurredAt: at });
const call = (overrides: Partial<ToolCallFacts> = {}): ToolCallFacts => ({
  createdEventId: '22222222-2222-4222-8222-222222222222',
  toolName: 'get_weather',
  owner: 'caller',
  arguments: { city: 'Rome' },
  approvalRequired: false,
  resultBlocks: null,
  failureMessage: null,
  ...overrides,
});
const facts = (calls: Record<string, ToolCallFacts> = {}, extra: Partial<EventFacts> = {}): EventFacts => ({
  toolCalls: new Map(Object.entries(calls)),
  queuedMessageEventOfRun: new Map(),
  attachmentsOfRun: new Map(),
  ...extra,
});
const useId = cmaEventId('22222222-2222-4222-8222-222222222222');

describe('product events as CMA session events', () => {
  it('ids are sevt_<product event id>, and read back', () => {
    expect(cmaEventId('11111111-1111-4111-8111-111111111111')).toBe('sevt_11111111-1111-4111-8111-111111111111');
    expect(productEventIdOf('sevt_11111111-1111-4111-8111-111111111111')).toBe('11111111-1111-4111-8111-111111111111');
    expect(productEventIdOf('sevt_nope')).toBeNull();
  });

  it('a failed run is a session.error then an idle retries_exhausted, with distinct ids', () => {
    const events = cmaEventsOf(source('run.failed', { failure: { errorCode: 'provider_rate_limited', errorExplanation: 'Slow down' } }), facts());
    expect(events).toEqual([
      {
        id: `${cmaEventId(source('x', {}).id)}_0`,
        type: 'session.error',
        error: { type: 'model_rate_limited_error', message: 'Slow down', retry_status: { type: 'exhausted' } },
        processed_at: at.toISOString(),
      },
      {
        id: `${cmaEventId(source('x', {}).id)}_1`,
        type: 'session.status_idle',
        stop_reason: { type: 'retries_exhausted' },
        stop_details: null,
        processed_at: at.toISOString(),
      },
    ]);
  });

  it('a spent budget is a billing_error, as the vendor quota is', () => {
    const [error] = cmaEventsOf(
      source('run.failed', { failure: { errorCode: 'budget_exceeded', errorExplanation: "The session's budget of 1 USD is spent" } }),
      facts(),
    );
    expect(error).toMatchObject({ type: 'session.error', error: { type: 'billing_error', message: "The session's budget of 1 USD is spent" } });
  });

  it('a wait names the tool uses it waits on', () => {
    const waiting = source('run.waiting_for_tool', { waitingOn: { toolCallIds: ['c1'] } });
    expect(toolCallIdsOf(waiting)).toEqual(['c1']);
    expect(cmaEventsOf(waiting, facts({ c1: call() }))[0]).toMatchObject({
      type: 'session.status_idle',
      stop_reason: { type: 'requires_action', event_ids: [useId] },
    });
  });

  it('every end of a caller call echoes a result, so no runner runs it again', () => {
    for (const kind of ['tool_call.expired', 'tool_call.cancelled', 'tool_call.denied']) {
      expect(cmaEventsOf(source(kind, { toolCallId: 'c1' }), facts({ c1: call() }))).toEqual([
        {
          id: expect.any(String),
          type: 'user.custom_tool_result',
          custom_tool_use_id: useId,
          content: [{ type: 'text', text: `The tool call ended: ${kind.slice('tool_call.'.length)}` }],
          is_error: true,
          processed_at: at.toISOString(),
        },
      ]);
    }
  });

  it('an expired approval is a deny; a decided one echoes its verdict', () => {
    expect(cmaEventsOf(source('approval.expired', { toolCallId: 'c1' }), facts({ c1: call({ approvalRequired: true }) }))[0]).toMatchObject({
      type: 'user.tool_confirmation',
      tool_use_id: useId,
      result: 'deny',
    });
    expect(cmaEventsOf(source('approval.decided', { toolCallId: 'c1', status: 'approved' }), facts({ c1: call({ approvalRequired: true }) }))[0]).toMatchObject(
      { result: 'allow' },
    );
  });

  it('sandbox and MCP uses are agent events; the runtime’s own tools are not shown', () => {
    expect(cmaEventsOf(source('tool_call.created', { toolCallId: 'c1' }), facts({ c1: call({ owner: 'platform', toolName: 'bash' }) }))[0]).toMatchObject({
      type: 'agent.tool_use',
      name: 'bash',
    });
    expect(
      cmaEventsOf(source('tool_call.created', { toolCallId: 'c1' }), facts({ c1: call({ owner: 'platform', toolName: 'mcp__docs__search' }) }))[0],
    ).toMatchObject({ type: 'agent.mcp_tool_use', mcp_server_name: 'docs', name: 'search' });
    expect(cmaEventsOf(source('tool_call.created', { toolCallId: 'c1' }), facts({ c1: call({ owner: 'platform', toolName: 'load_skill' }) }))).toEqual([]);
    expect(cmaEventsOf(source('tool_call.created', { toolCallId: 'c1' }), facts({ c1: call({ approvalRequired: true }) }))[0]).toMatchObject({
      type: 'agent.custom_tool_use',
      evaluated_permission: 'ask',
    });
  });

  it('a user turn shows its text and its files; a queued one keeps the id its send answered', () => {
    const attachments = [
      { id: 'a1', filename: 'chart.png', contentType: 'image/png', sizeBytes: 1, sha256: 'x', createdAt: at.toISOString() },
      { id: 'a2', filename: 'report.pdf', contentType: 'application/pdf', sizeBytes: 1, sha256: 'y', createdAt: at.toISOString() },
    ];
    const queued = '33333333-3333-4333-8333-333333333333';
    const [message] = cmaEventsOf(
      source('message.created', { role: 'user', runId: 'r1' }, { content: { text: 'Look' } }),
      facts({}, { attachmentsOfRun: new Map([['r1', attachments]]), queuedMessageEventOfRun: new Map([['r1', queued]]) }),
    );
    expect(message).toEqual({
      id: cmaEventId(queued),
      type: 'user.message',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image', source: { type: 'file', file_id: 'att_a1' } },
        { type: 'document', source: { type: 'file', file_id: 'att_a2' } },
      ],
      processed_at: at.toISOString(),
    });
    const [filesOnly] = cmaEventsOf(
      source('message.created', { role: 'user', runId: 'r1' }, { content: { text: 'Attached files.' } }),
      facts({}, { attachmentsOfRun: new Map([['r1', attachments]]) }),
    );
    expect((filesOnly!.content as unknown[]).length).toBe(2);
  });

  it('archive and delete end the session', () => {
    expect(cmaEventsOf(source('session.archived', { sessionId: 's' }), facts())[0]).toMatchObject({ type: 'session.status_terminated' });
    expect(cmaEventsOf(source('session.deleted', { sessionId: 's' }), facts())[0]).toMatchObject({ type: 'session.deleted' });
    expect(cmaEventsOf(source('session.updated', { sessionId: 's' }), facts())).toEqual([]);
  });
});
