import type { ServiceContext } from '../../kernel/service-context.ts';
import { findRun } from './load.ts';
import { toRunResponse, type PublicRun } from './public.ts';

/** The run object of spec 1 (`GET /runs/{id}`), with `failure` once it failed, was cancelled or timed out. */
export async function getRun({ ctx, input }: { ctx: ServiceContext; input: { runId: string } }): Promise<PublicRun> {
  return toRunResponse(await findRun(ctx, input.runId));
}
