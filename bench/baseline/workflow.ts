import { proxyActivities } from '@temporalio/workflow';

/**
 * The run-engine bench's baseline: the least a Temporal workflow that does one piece of work
 * can cost. Bundled by the bench's own Worker on its own task queue, so the product's workflow
 * bundle (workflows/index.ts) is untouched.
 */
export type BareActivities = { echo(input: string): Promise<string> };

const { echo } = proxyActivities<BareActivities>({ startToCloseTimeout: '30 seconds' });

/** One workflow task, one activity, one workflow task. */
export async function bareWorkflow(input: string): Promise<string> {
  return echo(input);
}
