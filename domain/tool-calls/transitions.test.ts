import { describe, expect, it } from 'vitest';
import { APPROVAL_STATUSES, TOOL_CALL_STATUSES } from './states.ts';
import { approvalStatusesInto, moveApproval, moveToolCall, toolCallStatusesInto } from './transitions.ts';

describe('tool call and approval moves', () => {
  it('lets a tool call move only along its lifecycle, and a final call nowhere', () => {
    expect(moveToolCall('pending', 'claimed')).toBe('claimed');
    expect(moveToolCall('claimed', 'pending')).toBe('pending');
    expect(moveToolCall('pending_approval', 'running')).toBe('running');
    expect(() => moveToolCall('pending', 'succeeded')).toThrow('A tool call cannot move from pending to succeeded');
    for (const from of ['succeeded', 'failed', 'expired', 'denied', 'cancelled'] as const) {
      for (const to of TOOL_CALL_STATUSES) expect(() => moveToolCall(from, to)).toThrow();
    }
  });

  it('names the statuses a change of many calls may start from', () => {
    expect(toolCallStatusesInto('cancelled').sort()).toEqual(['claimed', 'pending', 'pending_approval', 'running']);
    expect(toolCallStatusesInto('expired')).toEqual(['claimed']);
    expect(toolCallStatusesInto('denied')).toEqual(['pending_approval']);
    expect(toolCallStatusesInto('pending_approval')).toEqual([]);
  });

  it('decides or expires an approval once', () => {
    expect(moveApproval('pending', 'approved')).toBe('approved');
    expect(approvalStatusesInto('expired')).toEqual(['pending']);
    expect(approvalStatusesInto('pending')).toEqual([]);
    for (const from of APPROVAL_STATUSES.filter((status) => status !== 'pending')) {
      for (const to of APPROVAL_STATUSES) expect(() => moveApproval(from, to)).toThrow();
    }
    expect(() => moveApproval('pending', 'pending')).toThrow();
  });
});
