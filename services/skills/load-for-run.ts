import * as v from 'valibot';
import { EVENT_KINDS } from '../../domain/runs/events.ts';
import { appendProductEvent } from '../events/append.ts';
import { loadRunVersion } from '../runs/load-run-context.ts';
import type { ServiceContext } from '../service-context.ts';
import { completePlatformToolCall, type CompletedToolCall } from '../tool-calls/complete-platform.ts';
import { withTransaction } from '../transaction.ts';
import { loadSessionSkills } from './session-skills.ts';

const LoadArguments = v.object({ name: v.string(), path: v.optional(v.string()) });

/** Text types a file is returned as text for; anything else comes back as base64. */
const isText = (contentType: string) => /^text\/|^application\/(json|x-yaml|yaml|xml)\b/.test(contentType);

/**
 * Answers a run's `load_skill` call (for the runtime; no actor) from the Skill versions its
 * session bound at creation: the named Skill's instructions and file list, or with `path` that
 * file's content. A revoked version is refused with a tool error, as is a name the session does
 * not bind or a path the version does not have. In one transaction: the tool call's outcome and,
 * when the Skill loaded, a `skill.loaded` event (ids, name, version and path; never instructions
 * or bytes). Idempotent: a call that is already final is returned as it is.
 */
export async function loadSkillForRun(ctx: ServiceContext, input: { runId: string; toolCallId: string; arguments: unknown }): Promise<CompletedToolCall> {
  const { run, session } = await loadRunVersion(ctx.db, input.runId);
  const parsed = v.safeParse(LoadArguments, input.arguments);
  const fail = (message: string) => completePlatformToolCall(ctx, { toolCallId: input.toolCallId, outcome: { status: 'failure', code: 'tool_failed', message } });
  if (!parsed.success) return fail('load_skill needs the Skill name.');
  const { name, path } = parsed.output;
  const skill = (await loadSessionSkills(ctx.db, session.id)).find((entry) => entry.name === name);
  if (!skill) return fail(`This session has no Skill named "${name}".`);
  if (skill.status === 'revoked') return fail(`The Skill "${name}" was revoked and can no longer be used.`);

  let value: Record<string, unknown>;
  if (path === undefined) {
    value = {
      name: skill.name,
      description: skill.description,
      instructions: skill.instructions,
      files: skill.files.map((file) => ({ path: file.path, contentType: file.contentType, sizeBytes: Buffer.from(file.dataBase64, 'base64').length })),
    };
  } else {
    const file = skill.files.find((entry) => entry.path === path);
    if (!file) return fail(`The Skill "${name}" has no file "${path}".`);
    value = isText(file.contentType)
      ? { name: skill.name, path: file.path, contentType: file.contentType, text: Buffer.from(file.dataBase64, 'base64').toString('utf8') }
      : { name: skill.name, path: file.path, contentType: file.contentType, dataBase64: file.dataBase64 };
  }
  return withTransaction(ctx, async (tx) => {
    const completed = await completePlatformToolCall(tx, { toolCallId: input.toolCallId, outcome: { status: 'success', value } });
    if (completed.status === 'succeeded' && completed.changed) {
      await appendProductEvent(tx, {
        organizationId: run.organizationId,
        projectId: run.projectId,
        aggregateType: 'session',
        aggregateId: session.id,
        kind: EVENT_KINDS.skillLoaded,
        publicPayload: { sessionId: session.id, runId: run.id, toolCallId: input.toolCallId, skillId: skill.skillId, skillVersionId: skill.skillVersionId, version: skill.version, name: skill.name, path: path ?? null },
      });
    }
    return completed;
  });
}
