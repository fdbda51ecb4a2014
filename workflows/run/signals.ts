import { defineSignal } from '@temporalio/workflow';
import { RUN_SIGNALS } from '../../domain/runs/workflow.ts';

// The run workflow's signals (re-exported by ../run.ts, which registers their handlers).
export const cancelRequested = defineSignal(RUN_SIGNALS.cancelRequested);
export const toolResultSubmitted = defineSignal(RUN_SIGNALS.toolResultSubmitted);
export const approvalDecided = defineSignal(RUN_SIGNALS.approvalDecided);
export const descendantApprovalWait = defineSignal<[{ runId: string; waiting: boolean }]>(RUN_SIGNALS.descendantApprovalWait);
export const capacityFreed = defineSignal(RUN_SIGNALS.capacityFreed);
