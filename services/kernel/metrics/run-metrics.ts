import { sql } from 'drizzle-orm';
import { isSettled, type RunState } from '../../../domain/runs/states.ts';
import type { ServiceContext } from '../service-context.ts';
import { metrics } from './registry.ts';

/** Counts a queued run once its transaction commits (a rolled-back queue counts nothing). */
export function countRunQueued(tx: ServiceContext, agentId: string): void {
  tx.afterCommit.push(() => metrics.runsCreated.inc({ agent_id: agentId }));
}

/**
 * The agent of a run's version, read by the statement that settles it (a subquery in its
 * `returning`: no statement of its own), for the settled-runs counter's label.
 */
export const settlingRunAgentId = sql<string | null>`(select av.agent_id from agent_versions av where av.id = runs.agent_version_id)`;

/**
 * Counts a run's move once it commits: its queue time on the first admission, its duration and
 * final state (by agent) on settling.
 */
export function countRunMoved(tx: ServiceContext, run: { createdAt: Date; admittedAt: Date | null }, to: RunState, at: Date, agentId: string | null): void {
  tx.afterCommit.push(() => observeRunMoved(run, to, at, agentId));
}

/** `countRunMoved` for a move already committed (a step's one statement that committed on its own). */
export function observeRunMoved(run: { createdAt: Date; admittedAt: Date | null }, to: RunState, at: Date, agentId: string | null): void {
  const firstAdmission = to === 'running' && !run.admittedAt;
  if (!firstAdmission && !isSettled(to)) return;
  const seconds = Math.max(0, (at.getTime() - run.createdAt.getTime()) / 1000);
  if (firstAdmission) {
    metrics.runQueueTime.observe(seconds);
    return;
  }
  metrics.runDuration.observe({ state: to }, seconds);
  metrics.runsSettled.inc({ agent_id: agentId ?? 'unknown', state: to });
}
