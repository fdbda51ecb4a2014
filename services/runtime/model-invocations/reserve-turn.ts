import { and, eq, sql } from 'drizzle-orm';
import { BUDGET_CHECK_LOCK, rowsOf } from '../../../db/client.ts';
import { runTurnReservations } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { apiKeyIdOfSubject } from '../../../domain/principals.ts';
import { MODEL_ATTEMPT_DEADLINE_MS } from '../../../domain/runs/model-retry.ts';
import { heldByCallsInFlight, monthStartOf, spentLimit, withHeld, type Spend, type StoredBudget } from '../../../domain/usage/budget.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { spentCoordinatorBudget } from './coordinator-budget.ts';

/** What the attempt's invocation row records for the usage ledger. */
export type InvocationFacts = { agentId: string; apiKeyId: string | null };

/** A budget with no room left: which one, and its figures for the explanation. */
export type SpentBudget = {
  /** `coordinator_session`: a delegated run's coordinator session, whose budget covers its delegates' spend. */
  scope: 'session' | 'coordinator_session' | 'project';
  limit: 'cost' | 'tokens';
  budget: StoredBudget;
  spend: Spend;
  /** What sibling runs' calls in flight hold of it (a delegated run's check). */
  held?: Spend;
};

/** `fresh`: reserved by this call, in the caller's transaction (not a replayed turn's reservation). */
export type TurnReservation = { reserved: true; ordinal: number; fresh: boolean; facts: InvocationFacts } | { reserved: false; spentBudget?: SpentBudget };

type RunBudgetRow = {
  session_id: string;
  /** The session has a budget and child sessions (a coordinator's). */
  coordinates_with_budget: boolean;
  organization_id: string;
  project_id: string;
  parent_session_id: string | null;
  agent_id: string;
  creator_subject: string | null;
  session_max_cost_nanos: string | null;
  session_max_tokens: string | null;
  session_cost_nanos: string;
  session_tokens: string;
  project_max_cost_nanos: string | null;
  project_max_tokens: string | null;
  month_cost_nanos: string | null;
  month_tokens: string | null;
  month_invocations: string | null;
};

/** How long a started model call counts as in flight: its attempt deadline, with a margin. */
const IN_FLIGHT_MS = MODEL_ATTEMPT_DEADLINE_MS + 60_000;

const numberOrNull = (value: string | null) => (value === null ? null : Number(value));

/**
 * Before each model call (spec 3 "Budget rules", docs/decisions/budgets.md): reserves one unit
 * of the run's turn budget for `turnId`, after checking the session's budget and the project's
 * monthly budget still have room. Durable and idempotent: replaying a turn id reuses its
 * reservation, so worker recovery and provider retries reserve nothing more; a spent money or
 * token budget refuses every new call, replays included (a retried attempt is a new provider
 * call). The run row is locked so parallel calls share the turn budget exactly; the spend is
 * read as committed, so concurrent calls may each pass the check before any of them completes
 * (the overshoot bound in docs/decisions/budget-overshoot-bound.md), except a delegated run's:
 * its siblings' calls in flight count as spent at the month's average per call (heldBySiblings).
 * One statement reads the run, its budgets and the month's spend from the usage rollup.
 */
export async function reserveModelTurn(
  ctx: ServiceContext,
  input: {
    runId: string;
    turnId: string;
    maxTurns: number;
    /** The run's budget as its caller read it (`turnBudgetColumns`): no read of its own. */
    read?: TurnBudgetRead;
    /**
     * The next ordinal taken from `read`, the insert held for the caller's one write
     * (begin.ts's one-write begin): see `reserveFromRead`. Otherwise the insert counts itself.
     */
    ordinalFromRead?: boolean;
  },
): Promise<TurnReservation> {
  return withTransaction(ctx, async (tx) => {
    const row = input.read?.budget ?? (await readRunBudget(tx, input.runId, { lock: true }));
    const spentBudget =
      spentBudgetOf(row, row.parent_session_id ? await heldBySiblings(tx, input.runId, row) : undefined) ??
      (await spentOfCoordinator(tx, input.runId, row, { lock: true }));
    if (spentBudget) return { reserved: false as const, spentBudget };
    const facts: InvocationFacts = { agentId: row.agent_id, apiKeyId: row.creator_subject === null ? null : apiKeyIdOfSubject(row.creator_subject) };
    if (input.read?.reservations.ordinal != null) return { reserved: true as const, ordinal: Number(input.read.reservations.ordinal), fresh: false, facts };
    if (input.read && input.ordinalFromRead) return reserveFromRead(tx, input, input.read, facts, row);
    // One statement, whose snapshot is taken after the run's lock was granted (a count read by the
    // statement that waited for the lock would miss a reservation committed meanwhile): the next
    // ordinal, if the budget has room and this turn holds none yet. Nothing inserted means a
    // replayed turn (its reservation stands) or a spent budget.
    const inserted = rowsOf<{ ordinal: number }>(
      await tx.db.execute(sql`
        insert into run_turn_reservations (run_id, turn_id, organization_id, project_id, ordinal, created_at)
        select ${input.runId}::uuid, ${input.turnId}::text, ${row.organization_id}::uuid, ${row.project_id}::uuid, (count(*) + 1)::int, ${tx.clock.now().toISOString()}::timestamptz
        from run_turn_reservations where run_id = ${input.runId}::uuid
        having count(*) < ${input.maxTurns}::int
        on conflict (run_id, turn_id) do nothing
        returning ordinal`),
    );
    if (inserted[0]) return { reserved: true as const, ordinal: Number(inserted[0].ordinal), fresh: true, facts };
    const [existing] = await tx.db
      .select({ ordinal: runTurnReservations.ordinal })
      .from(runTurnReservations)
      .where(and(eq(runTurnReservations.runId, input.runId), eq(runTurnReservations.turnId, input.turnId)));
    return existing ? { reserved: true as const, ordinal: existing.ordinal, fresh: false, facts } : { reserved: false as const };
  });
}

/**
 * The run's budget and turn reservations as its caller read them, under the run's lock, in the
 * transaction it reserves in (`turnBudgetColumns`; the model turn's one read, turn-context.ts).
 */
export type TurnBudgetRead = { budget: RunBudgetRow; reservations: { count: number; ordinal: number | null } };

/**
 * The columns of `TurnBudgetRead` for a select of the run `runId` that locks it: the budget row
 * as `turn_budget` and this turn's reservations as `turn_reservations` (JSON).
 */
export function turnBudgetColumns(runId: string, turnId: string, now: Date) {
  return {
    budget: sql<RunBudgetRow>`(select row_to_json(b) from (${runBudgetSelect(runId, now)}) b)`,
    reservations: sql<TurnBudgetRead['reservations']>`(
      select json_build_object('count', count(*), 'ordinal', max(ordinal) filter (where turn_id = ${turnId}::text))
      from run_turn_reservations where run_id = ${runId}::uuid)`,
  };
}

/**
 * The next ordinal from the reservations read before (without the run's lock), the insert held for
 * the caller's one write: a turn reserved since the read holds this ordinal, and the unique index
 * on it refuses the whole statement (the caller then reserves under the lock).
 */
async function reserveFromRead(
  tx: ServiceContext,
  input: { runId: string; turnId: string; maxTurns: number },
  read: TurnBudgetRead,
  facts: InvocationFacts,
  row: RunBudgetRow,
): Promise<TurnReservation> {
  const count = Number(read.reservations.count);
  if (count >= input.maxTurns) return { reserved: false };
  const ordinal = count + 1;
  await holdWrite(
    tx,
    tx.db.insert(runTurnReservations).values({
      runId: input.runId,
      turnId: input.turnId,
      organizationId: row.organization_id,
      projectId: row.project_id,
      ordinal,
      createdAt: tx.clock.now(),
    }),
  );
  return { reserved: true, ordinal, fresh: true, facts };
}

/**
 * The run's spend against its session's and project's budgets, and what its invocation rows
 * record for the ledger, without reserving a turn: for model calls outside the turn budget (a
 * context compaction's summary). A spent budget refuses them too.
 */
export async function checkRunBudget(ctx: ServiceContext, runId: string): Promise<{ spentBudget?: SpentBudget; facts: InvocationFacts }> {
  const row = await readRunBudget(ctx, runId, { lock: false });
  const facts: InvocationFacts = { agentId: row.agent_id, apiKeyId: row.creator_subject === null ? null : apiKeyIdOfSubject(row.creator_subject) };
  const spentBudget = spentBudgetOf(row) ?? (await spentOfCoordinator(ctx, runId, row, { lock: false }));
  return spentBudget ? { spentBudget, facts } : { facts };
}

/** One statement: the run, its budgets and the month's spend from the usage rollup (`lock`: the run row for update). */
async function readRunBudget(tx: ServiceContext, runId: string, options: { lock: boolean }): Promise<RunBudgetRow> {
  const [row] = rowsOf<RunBudgetRow>(await tx.db.execute(sql`${runBudgetSelect(runId, tx.clock.now())} ${options.lock ? sql`for update of r` : sql``}`));
  if (!row) throw new NotFoundError('No run with that id');
  return row;
}

function runBudgetSelect(runId: string, now: Date) {
  const monthStart = monthStartOf(now);
  return sql`
        select r.session_id, r.organization_id, r.project_id, s.parent_session_id, s.agent_id, creator.subject as creator_subject,
          s.budget_max_cost_nanos as session_max_cost_nanos, s.budget_max_tokens as session_max_tokens,
          s.cost_nanos as session_cost_nanos, s.input_tokens + s.output_tokens as session_tokens,
          p.budget_monthly_max_cost_nanos as project_max_cost_nanos, p.budget_monthly_max_tokens as project_max_tokens,
          month.cost_nanos as month_cost_nanos, month.tokens as month_tokens, month.invocations as month_invocations,
          (s.budget_max_cost_nanos is not null or s.budget_max_tokens is not null)
            and exists (select 1 from sessions c where c.parent_session_id = s.id) as coordinates_with_budget
        from runs r
        join sessions s on s.id = r.session_id
        join projects p on p.id = r.project_id
        left join principals creator on creator.id = r.created_by_principal_id
        left join lateral (
          select sum(u.cost_nanos) as cost_nanos, sum(u.input_tokens + u.output_tokens) as tokens, sum(u.invocations) as invocations
          from usage_daily u
          where u.project_id = r.project_id and u.day >= ${monthStart}::date
            and (p.budget_monthly_max_cost_nanos is not null or p.budget_monthly_max_tokens is not null)
        ) month on true
        where r.id = ${runId}::uuid`;
}

/**
 * What the model calls in flight of a delegated run's siblings (the other child runs of its
 * coordinator run) hold of the project's monthly budget: each counts at the month's average per
 * completed call, so the children of a fan-out, which start together, cannot all pass a check
 * that none of their spend has reached yet (docs/decisions/parallel-delegation.md). Only with a
 * project budget: the project's budget checks are serialized first (`BUDGET_CHECK_LOCK`), so
 * siblings check one at a time, each seeing the calls the ones before it started (their invocation
 * rows commit with their reservations).
 */
async function heldBySiblings(tx: ServiceContext, runId: string, row: RunBudgetRow): Promise<Spend | undefined> {
  if (row.project_max_cost_nanos === null && row.project_max_tokens === null) return undefined;
  const invocations = Number(row.month_invocations ?? 0);
  if (invocations === 0) return undefined;
  await tx.db.execute(sql`select pg_advisory_xact_lock(${BUDGET_CHECK_LOCK}, hashtext(${row.project_id}))`);
  const [inFlight] = rowsOf<{ calls: number }>(
    await tx.db.execute(sql`
      select count(*)::int as calls
      from model_invocations mi
      where mi.status = 'started' and mi.run_id <> ${runId}::uuid
        and mi.started_at > ${new Date(tx.clock.now().getTime() - IN_FLIGHT_MS).toISOString()}::timestamptz
        and mi.run_id in (
          select dc.child_run_id from delegation_calls dc
          join tool_calls tc on tc.id = dc.tool_call_id
          where tc.run_id = (
            select parent.run_id from delegation_calls own join tool_calls parent on parent.id = own.tool_call_id where own.child_run_id = ${runId}::uuid
          )
        )`),
  );
  const month = { costNanos: Number(row.month_cost_nanos ?? 0), tokens: Number(row.month_tokens ?? 0) };
  return heldByCallsInFlight(Number(inFlight?.calls ?? 0), month, invocations);
}

/**
 * The budgets of the delegation tree the run is in (`spentCoordinatorBudget`): read only for a
 * delegated run, or a run of a session with a budget and child sessions.
 */
async function spentOfCoordinator(tx: ServiceContext, runId: string, row: RunBudgetRow, options: { lock: boolean }): Promise<SpentBudget | undefined> {
  if (!row.parent_session_id && !row.coordinates_with_budget) return undefined;
  const inFlightSince = new Date(tx.clock.now().getTime() - IN_FLIGHT_MS);
  const spent = await spentCoordinatorBudget(tx, { runId, sessionId: row.session_id, inFlightSince, lock: options.lock });
  return spent ? { scope: 'coordinator_session', ...spent } : undefined;
}

function spentBudgetOf(row: RunBudgetRow, held?: Spend): SpentBudget | undefined {
  const session = {
    budget: { maxCostNanos: numberOrNull(row.session_max_cost_nanos), maxTokens: numberOrNull(row.session_max_tokens) },
    spend: { costNanos: Number(row.session_cost_nanos), tokens: Number(row.session_tokens) },
  };
  const sessionLimit = spentLimit(session.budget, session.spend);
  if (sessionLimit) return { scope: 'session', limit: sessionLimit, ...session };
  const project = {
    budget: { maxCostNanos: numberOrNull(row.project_max_cost_nanos), maxTokens: numberOrNull(row.project_max_tokens) },
    spend: { costNanos: Number(row.month_cost_nanos ?? 0), tokens: Number(row.month_tokens ?? 0) },
  };
  const projectLimit = spentLimit(project.budget, withHeld(project.spend, held));
  return projectLimit ? { scope: 'project', limit: projectLimit, ...project, ...(held ? { held } : {}) } : undefined;
}
