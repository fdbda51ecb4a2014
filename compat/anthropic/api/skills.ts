import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { SkillUpload } from '../domain/skills.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { SKILL_DISPLAY_NAME_MAX_CHARS, SKILL_FILE_MAX_BYTES, SKILL_MAX_FILES, SKILL_PACKAGE_MAX_BYTES } from '../../../domain/skills/limits.ts';
import {
  createCompatSkill,
  createCompatSkillVersion,
  deleteCompatSkill,
  deleteCompatSkillVersion,
  downloadCompatSkillVersion,
  getCompatSkill,
  getCompatSkillVersion,
  listCompatSkills,
  listCompatSkillVersions,
} from '../services/skills.ts';
import type { AppEnv } from '../../../api/env.ts';
import { readMultipart, type MultipartLimits } from '../../../api/multipart.ts';
import { needs } from './auth.ts';
import { deduped } from './retries.ts';
import { isOurId, paging } from './requests.ts';

const skillId = (c: Context<AppEnv>) => {
  const id = c.req.param('skillId') ?? '';
  if (!isOurId(id)) throw new NotFoundError('No Skill with that id in this project');
  return id;
};
const versionIds = (c: Context<AppEnv>) => {
  const versionId = c.req.param('versionId') ?? '';
  const skill = skillId(c);
  if (!isOurId(versionId)) throw new NotFoundError('No version with that id for this Skill');
  return { skillId: skill, versionId };
};

const SOURCES = ['custom', 'anthropic', 'anthropic_example', 'plugin'];

/**
 * A Skill upload's body, from the package limits (domain/skills/limits.ts): the package's files
 * and SKILL.md (each at most 1 MiB; the files 8 MiB in all), `display_name` (200 characters of
 * UTF-8), and 1 MiB for the multipart framing (about 10 KiB per part): 10 MiB in all.
 */
export const SKILL_UPLOAD_LIMITS: MultipartLimits = {
  maxBodyBytes: SKILL_PACKAGE_MAX_BYTES + SKILL_FILE_MAX_BYTES + 1024 * 1024,
  maxFiles: SKILL_MAX_FILES + 1,
  maxFileBytes: SKILL_FILE_MAX_BYTES,
  maxFields: 1,
  maxFieldBytes: SKILL_DISPLAY_NAME_MAX_CHARS * 4,
};

/**
 * `client.beta.skills` (and the GA `client.skills`, same paths): create and versions.create
 * upload multipart `files[]` parts; scopes as the native Skill routes (reads `skill:read`,
 * uploads `skill:write`, deletes `skill:revoke`).
 */
export function compatSkillRoutes() {
  return new Hono<AppEnv>()
    .post('/skills', needs('skill:write'), async (c) => {
      const upload = await uploadOf(c, { displayName: true });
      return deduped(c, (ctx) => createCompatSkill({ ctx, input: upload }), { requestHash: uploadHash(upload) });
    })
    .get('/skills', needs('skill:read'), async (c) => {
      const raw = c.req.query('source');
      const source = raw === undefined || raw === '' ? undefined : raw;
      if (source !== undefined && !SOURCES.includes(source)) throw new ValidationError(`source must be one of ${SOURCES.join(', ')}`, { path: 'query.source' });
      return c.json(await listCompatSkills({ ctx: c.var.ctx, input: { ...paging(c), source } }));
    })
    .get('/skills/:skillId', needs('skill:read'), async (c) => c.json(await getCompatSkill({ ctx: c.var.ctx, input: { skillId: skillId(c) } })))
    .delete('/skills/:skillId', needs('skill:revoke'), async (c) => deduped(c, (ctx) => deleteCompatSkill({ ctx, input: { skillId: skillId(c) } })))
    .post('/skills/:skillId/versions', needs('skill:write'), async (c) => {
      const id = skillId(c);
      const upload = await uploadOf(c, { displayName: false });
      return deduped(c, (ctx) => createCompatSkillVersion({ ctx, input: { skillId: id, files: upload.files } }), { requestHash: uploadHash(upload) });
    })
    .get('/skills/:skillId/versions', needs('skill:read'), async (c) =>
      c.json(await listCompatSkillVersions({ ctx: c.var.ctx, input: { skillId: skillId(c), ...paging(c) } })),
    )
    .get('/skills/:skillId/versions/:versionId', needs('skill:read'), async (c) =>
      c.json(await getCompatSkillVersion({ ctx: c.var.ctx, input: versionIds(c) })),
    )
    .delete('/skills/:skillId/versions/:versionId', needs('skill:revoke'), async (c) =>
      deduped(c, (ctx) => deleteCompatSkillVersion({ ctx, input: versionIds(c) })),
    )
    .get('/skills/:skillId/versions/:versionId/content', needs('skill:read'), async (c) => {
      const { filename, zip } = await downloadCompatSkillVersion({ ctx: c.var.ctx, input: versionIds(c) });
      return c.body(zip as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${filename}"` });
    });
}

/** A hash of an upload's parts (a retry's multipart boundary differs; its parts do not). */
function uploadHash(upload: { files: SkillUpload[]; displayName?: string }): string {
  const digest = createHash('sha256').update(`display_name:${upload.displayName ?? ''}\n`);
  for (const file of upload.files) digest.update(`${file.filename}\n${createHash('sha256').update(file.bytes).digest('hex')}\n`);
  return digest.digest('hex');
}

/**
 * The parts of a Skill upload, read within `SKILL_UPLOAD_LIMITS`: every `files[]` part (the SDK's
 * name; `files` is accepted too) with its filename, and `display_name` where the call takes one.
 * Any other part is a 400 naming it as soon as it begins, never ignored.
 */
async function uploadOf(c: Context<AppEnv>, options: { displayName: boolean }): Promise<{ files: SkillUpload[]; displayName?: string }> {
  if (!/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '')) {
    throw new ValidationError('The body must be multipart/form-data with the Skill files as files[] parts', { path: 'body' });
  }
  const parts = await readMultipart(c, SKILL_UPLOAD_LIMITS, ({ name, kind }) => {
    if (name === 'files[]' || name === 'files') {
      if (kind !== 'file')
        throw new ValidationError('files[]: every part must be a file whose filename is its path, like "my-skill/SKILL.md"', { path: 'body.files[]' });
    } else if (!(name === 'display_name' && options.displayName)) {
      throw new ValidationError(`${name}: not a field of this upload`, { path: `body.${name}` });
    } else if (kind !== 'field') {
      throw new ValidationError('display_name must be one text part', { path: 'body.display_name' });
    }
  });
  const files: SkillUpload[] = [];
  let displayName: string | undefined;
  for (const part of parts) {
    if (part.kind === 'file') files.push({ filename: part.filename, bytes: part.bytes });
    else displayName = part.value;
  }
  return { files, ...(displayName !== undefined ? { displayName } : {}) };
}
