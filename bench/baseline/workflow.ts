import { proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';

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

/**
 * The delegation bench's floor: a delegation's shape in bare Temporal (a turn, a child workflow
 * doing one turn, a turn), against two `bareWorkflow`s one after the other.
 */
export async function bareDelegation(input: string): Promise<string> {
  await echo(input);
  const child = await startChild(bareWorkflow, { args: [input], workflowId: `${workflowInfo().workflowId}-child` });
  await child.result();
  return echo(input);
}
