import { proxyActivities } from '@temporalio/workflow';

/**
 * The peer benchmark's floor: the least a durable one-turn agent on Temporal can be — one
 * workflow whose one activity makes the model call. No database, no events, no API.
 */
export type FloorActivities = { callModel(message: string): Promise<string> };

const { callModel } = proxyActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

export async function floorAgent(message: string): Promise<string> {
  return callModel(message);
}
