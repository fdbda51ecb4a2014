import { and, eq, isNull } from 'drizzle-orm';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { turnFileSetProblem } from '../../../domain/attachments/file-input.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { scopesToFire } from '../../../domain/schedules/authority.ts';
import type { ScheduleIfBusy, ScheduleMemoryStore, ScheduleTarget } from '../../../domain/schedules/inputs.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { attachSessionMemoryStores } from '../../configuration/memory-stores/index.ts';
import { findTurnUploads } from '../../runtime/attachments/index.ts';
import { findSession } from '../../runtime/runs/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';

/** A schedule's fields as they will be stored, before the checks that read the database. */
export type ScheduleDraft = {
  agentId: string | null;
  agentVersionId: string | null;
  target: ScheduleTarget;
  sessionId: string | null;
  ifBusy: ScheduleIfBusy | null;
  files: Array<{ uploadId: string }>;
  memoryStores: ScheduleMemoryStore[];
};

/**
 * The caller holds what a firing of a schedule with this target needs (`scopesToFire`: `run:create`,
 * and `session:write` for `new_session`), or a 403 naming what it lacks. The one check of creating,
 * changing and triggering ("run now") a schedule: nobody makes a schedule start runs they could not.
 */
export function assertMayFire(actor: Actor, target: ScheduleTarget): void {
  assertHasScopes(actor.scopes, scopesToFire(target));
}

/**
 * The checks of a schedule that read the database, when it is created or changed:
 * - the caller may fire it (`assertMayFire`): after a change of what it does, its firings act
 *   as the caller (docs/decisions/schedule-acting-principal.md);
 * - the agent (or the pinned version's agent) is a live agent of the project; for `session`, the
 *   session is a live, unarchived root session of the project, and a given agent or version must
 *   be the session's;
 * - every file is a live upload of the project that never expires (each firing attaches it
 *   again), and together they keep the turn file rules (names, 20 MiB);
 * - the memory stores attach as `POST /sessions` would attach them now (stores of the project,
 *   an archived one `read_only` only, no two with one directory); each firing checks them again.
 * Returns the agent the schedule is recorded with. A 400 or 404 names the failing field.
 */
export async function checkScheduleReferences(ctx: ServiceContext, actor: Actor, draft: ScheduleDraft): Promise<{ agentId: string }> {
  assertMayFire(actor, draft.target);
  await checkFiles(ctx, actor, draft.files);
  await attachSessionMemoryStores(ctx, actor, draft.memoryStores);
  if (draft.target === 'session') return checkSessionTarget(ctx, draft);
  if (draft.agentVersionId) {
    const [version] = await ctx.db
      .select({ agentId: agentVersions.agentId })
      .from(agentVersions)
      .innerJoin(agents, eq(agents.id, agentVersions.agentId))
      .where(and(eq(agentVersions.id, draft.agentVersionId), eq(agentVersions.projectId, actor.projectId), isNull(agents.deletedAt)));
    if (!version) throw new ValidationError('agentVersionId: no version of a live agent of this project has that id', { path: 'body.agentVersionId' });
    return { agentId: version.agentId };
  }
  const [agent] = await ctx.db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, draft.agentId!), eq(agents.projectId, actor.projectId), isNull(agents.deletedAt)));
  if (!agent) throw new ValidationError('agentId: no live agent of this project has that id', { path: 'body.agentId' });
  return { agentId: agent.id };
}

async function checkSessionTarget(ctx: ServiceContext, draft: ScheduleDraft): Promise<{ agentId: string }> {
  const session = await findSession({ ctx, input: { sessionId: draft.sessionId! } }).catch(() => null);
  if (!session) throw new ValidationError('sessionId: no session of this project has that id', { path: 'body.sessionId' });
  if (session.archivedAt) throw new ValidationError('sessionId: the session is archived and takes no new turns', { path: 'body.sessionId' });
  // A delegated session's turns come from its coordinator (services/runtime/runs/create-follow-up.ts).
  if (session.parentSessionId) throw new ValidationError("sessionId: a delegated session's turns are driven by its coordinator", { path: 'body.sessionId' });
  if (draft.agentId && draft.agentId !== session.agentId)
    throw new ValidationError("agentId: must be the session's agent (or left out)", { path: 'body.agentId' });
  if (draft.agentVersionId && draft.agentVersionId !== session.agentVersionId)
    throw new ValidationError("agentVersionId: must be the session's agent version (or left out)", { path: 'body.agentVersionId' });
  return { agentId: session.agentId };
}

async function checkFiles(ctx: ServiceContext, actor: Actor, files: ReadonlyArray<{ uploadId: string }>): Promise<void> {
  if (files.length === 0) return;
  const found = await findTurnUploads(ctx, { projectId: actor.projectId, files });
  for (const [index, file] of files.entries()) {
    if (found.get(file.uploadId)!.expiresAt !== null) {
      throw new ValidationError(
        `Invalid body: files.${index}.uploadId: the upload expires; a schedule attaches its files at every firing, so it needs uploads without expiresInSeconds`,
        { path: `body.files.${index}.uploadId` },
      );
    }
  }
  const problem = turnFileSetProblem(
    files.map((file) => ({ name: found.get(file.uploadId)!.filename, sizeBytes: found.get(file.uploadId)!.sizeBytes })),
    (index) => `files.${index}`,
  );
  if (problem) throw new ValidationError(`Invalid body: ${problem.path}: ${problem.message}`, { path: `body.${problem.path}` });
}
