import {
  displayNameOf,
  latestVisibleVersion,
  offsetPage,
  renderSkill,
  renderSkillVersion,
  skillArchiveEntries,
  skillBodyOf,
  storedZip,
  type CmaSkill,
  type CmaSkillVersion,
  type SkillUpload,
} from '../domain/skills.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { createSkill } from '../../../services/configuration/skills/index.ts';
import { deleteSkill } from '../../../services/configuration/skills/index.ts';
import { exportSkillVersion } from '../../../services/configuration/skills/index.ts';
import { getSkill } from '../../../services/configuration/skills/index.ts';
import { listSkills } from '../../../services/configuration/skills/index.ts';
import type { PublicSkill, PublicSkillDetail, PublicSkillVersion } from '../../../services/configuration/skills/index.ts';
import { publishSkillVersion } from '../../../services/configuration/skills/index.ts';
import { setSkillVersionLifecycle } from '../../../services/configuration/skills/index.ts';
import { withTransaction } from '../../../services/kernel/transaction.ts';

/**
 * Claude Managed Agents Skills (`/compat/anthropic/v1/skills`) over our Skill verbs: every rule
 * is theirs. A Skill's key is its SKILL.md name; a version "deleted" here is revoked, and revoked
 * versions are gone for CMA clients (not listed, 404 when read).
 */

const versionNotFound = () => new NotFoundError('No version with that id for this Skill');

/** Creates a Skill and its version 1 from an upload; a name taken in the project is `skill_name_taken`. */
export async function createCompatSkill({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { files: SkillUpload[]; displayName?: string | undefined };
}): Promise<CmaSkill> {
  const { name, body } = skillBodyOf(input.files);
  const displayName = displayNameOf(input.displayName, name);
  try {
    return toCmaSkill(await createSkill({ ctx, input: { key: name, displayName, ...body } }));
  } catch (error) {
    // createSkill's only conflict is its key (`body.key`): a live Skill of the project has the name.
    if (error instanceof ConflictError && error.details?.path === 'body.key') {
      throw new ConflictError(`A Skill named "${name}" already exists in this project`, { error_code: 'skill_name_taken', skill_name: name });
    }
    throw error;
  }
}

export async function getCompatSkill({ ctx, input }: { ctx: ServiceContext; input: { skillId: string } }): Promise<CmaSkill> {
  return toCmaSkill(await getSkill({ ctx, input }));
}

/** The project's Skills, newest first; `source` other than `custom` lists nothing (all ours are custom). */
export async function listCompatSkills({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; page: string | undefined; source: string | undefined };
}): Promise<{ data: CmaSkill[]; next_page: string | null }> {
  if (input.source !== undefined && input.source !== 'custom') return { data: [], next_page: null };
  const page = await listSkills({ ctx, input: { limit: Math.min(input.limit, 200), ...(input.page ? { cursor: input.page } : {}) } });
  const data: CmaSkill[] = [];
  for (const skill of page.data) data.push(await listedSkill(ctx, skill));
  return { data, next_page: page.pageInfo.nextCursor };
}

export async function deleteCompatSkill({ ctx, input }: { ctx: ServiceContext; input: { skillId: string } }): Promise<{ id: string; type: 'skill_deleted' }> {
  const deleted = await deleteSkill({ ctx, input });
  return { id: deleted.id, type: 'skill_deleted' };
}

/** Publishes the next version from an upload whose SKILL.md name is the Skill's (its latest version's name). */
export async function createCompatSkillVersion({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; files: SkillUpload[] };
}): Promise<CmaSkillVersion> {
  const { name, body } = skillBodyOf(input.files);
  return withTransaction(ctx, async (tx) => {
    const skill = await getSkill({ ctx: tx, input: { skillId: input.skillId } });
    const current = skill.versions.at(-1)?.name ?? skill.key;
    if (name !== current) throw new ValidationError(`files[]: the SKILL.md name "${name}" must be the Skill's name "${current}"`, { path: 'body.files[]' });
    return toCmaVersion(await publishSkillVersion({ ctx: tx, input: { skillId: skill.id, body } }));
  });
}

/** The Skill's versions but revoked ones, newest first. */
export async function listCompatSkillVersions({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; limit: number; page: string | undefined };
}): Promise<{ data: CmaSkillVersion[]; next_page: string | null }> {
  const skill = await getSkill({ ctx, input: { skillId: input.skillId } });
  const visible = skill.versions.filter((version) => version.status !== 'revoked').reverse();
  return offsetPage(visible.map(toCmaVersion), input);
}

export async function getCompatSkillVersion({ ctx, input }: { ctx: ServiceContext; input: { skillId: string; versionId: string } }): Promise<CmaSkillVersion> {
  return toCmaVersion(visibleVersion(await getSkill({ ctx, input: { skillId: input.skillId } }), input.versionId));
}

/** Revokes the version (our lifecycle: existing sessions stop using it too); a revoked version is already deleted (404). */
export async function deleteCompatSkillVersion({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; versionId: string };
}): Promise<{ id: string; type: 'skill_version_deleted' }> {
  return withTransaction(ctx, async (tx) => {
    visibleVersion(await getSkill({ ctx: tx, input: { skillId: input.skillId } }), input.versionId);
    const revoked = await setSkillVersionLifecycle({ ctx: tx, input: { ...input, status: 'revoked' } });
    return { id: revoked.id, type: 'skill_version_deleted' as const };
  });
}

/** The version as a stored zip: `<name>/SKILL.md` (rendered by the core) and every file, under the version's name. */
export async function downloadCompatSkillVersion({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { skillId: string; versionId: string };
}): Promise<{ filename: string; zip: Uint8Array }> {
  const version = visibleVersion(await getSkill({ ctx, input: { skillId: input.skillId } }), input.versionId);
  const exported = await exportSkillVersion({ ctx, input });
  return { filename: `${exported.name}.zip`, zip: storedZip(skillArchiveEntries(exported), new Date(version.createdAt)) };
}

function visibleVersion(skill: PublicSkillDetail, versionId: string): PublicSkillVersion {
  const version = skill.versions.find((candidate) => candidate.id === versionId);
  if (!version || version.status === 'revoked') throw versionNotFound();
  return version;
}

function toCmaSkill(skill: PublicSkillDetail): CmaSkill {
  const latest = latestVisibleVersion(skill.versions)!;
  return renderSkill({ id: skill.id, displayName: skill.displayName, latestVersionId: latest.id, createdAt: skill.createdAt, updatedAt: skill.updatedAt });
}

/** A listed Skill: its latest version from the list, unless that one is revoked (then every version is read). */
async function listedSkill(ctx: ServiceContext, skill: PublicSkill): Promise<CmaSkill> {
  if (skill.latestVersion && skill.latestVersion.status !== 'revoked') {
    return renderSkill({
      id: skill.id,
      displayName: skill.displayName,
      latestVersionId: skill.latestVersion.id,
      createdAt: skill.createdAt,
      updatedAt: skill.updatedAt,
    });
  }
  return toCmaSkill(await getSkill({ ctx, input: { skillId: skill.id } }));
}

function toCmaVersion(version: PublicSkillVersion): CmaSkillVersion {
  return renderSkillVersion({ id: version.id, skillId: version.skillId, name: version.name, description: version.description, createdAt: version.createdAt });
}
