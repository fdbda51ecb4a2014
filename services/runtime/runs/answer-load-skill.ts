import * as v from 'valibot';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import type { ProductEventDraft } from '../../kernel/events/index.ts';
import { loadRunVersion } from './load-run-context.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { PlatformToolOutcome } from '../tool-calls/index.ts';
import { loadSessionSkills } from './session-skills.ts';

const LoadArguments = v.object({ name: v.string(), path: v.optional(v.string()) });

/** Text types a file is returned as text for; anything else comes back as base64. */
const isText = (contentType: string) => /^text\/|^application\/(json|x-yaml|yaml|xml)\b/.test(contentType);

/**
 * The answer to a run's `load_skill` call (for the runtime; no actor), from the Skill versions
 * its session bound at creation: the named Skill's instructions and file list, or with `path`
 * that file's content, and the `skill.loaded` event (ids, name, version and path; never
 * instructions or bytes) that is recorded with the result. A revoked version is refused with a
 * tool error, as is a name the session does not bind or a path the version does not have.
 * Reads only: the tool-call verb records the outcome.
 */
export async function answerLoadSkill({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runId: string; toolCallId: string; arguments: unknown };
}): Promise<{ outcome: PlatformToolOutcome; events?: ProductEventDraft[] }> {
  const { run, session } = await loadRunVersion(ctx.db, input.runId);
  const parsed = v.safeParse(LoadArguments, input.arguments);
  const fail = (message: string) => ({ outcome: { status: 'failure' as const, code: 'tool_failed' as const, message } });
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
  return {
    outcome: { status: 'success', value },
    events: [
      {
        aggregateType: 'session',
        aggregateId: session.id,
        kind: EVENT_KINDS.skillLoaded,
        publicPayload: {
          sessionId: session.id,
          runId: run.id,
          toolCallId: input.toolCallId,
          skillId: skill.skillId,
          skillVersionId: skill.skillVersionId,
          version: skill.version,
          name: skill.name,
          path: path ?? null,
        },
      },
    ],
  };
}
