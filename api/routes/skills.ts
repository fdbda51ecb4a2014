import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import { SkillVersionBody } from '../../domain/skills/content.ts';
import { SetSkillVersionLifecycleInput } from '../../domain/skills/lifecycle.ts';
import { SKILL_VERSION_BODY_MAX_BYTES } from '../../domain/skills/limits.ts';
import { CreateSkillInput, SetSkillEnabledInput } from '../../domain/skills/skill.ts';
import { createSkill } from '../../services/skills/create.ts';
import { deleteSkill } from '../../services/skills/delete.ts';
import { exportSkillVersion } from '../../services/skills/export-version.ts';
import { getSkill } from '../../services/skills/get.ts';
import { listSkills } from '../../services/skills/list.ts';
import { publishSkillVersion } from '../../services/skills/publish-version.ts';
import { setSkillEnabled } from '../../services/skills/set-enabled.ts';
import { setSkillVersionLifecycle } from '../../services/skills/set-version-lifecycle.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const SkillParams = v.object({ projectId: Uuid, skillId: Uuid });
const VersionParams = v.object({ projectId: Uuid, skillId: Uuid, versionId: Uuid });

/**
 * Skills (spec 2 "Skills"): reads need `skill:read`; package writes (create, versions)
 * `skill:write`; enable/disable, removal and version lifecycle `skill:revoke`.
 */
export function skillRoutes() {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/skills', requireScopes('skill:read'), async (c) => {
      return c.json(await listSkills({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
    })
    .post('/projects/:projectId/skills', requireScopes('skill:write'), async (c) => {
      const input = await validBody(c, CreateSkillInput, { maxBytes: SKILL_VERSION_BODY_MAX_BYTES });
      return c.json(await createSkill({ ctx: c.var.ctx, input }), 201);
    })
    .get('/projects/:projectId/skills/:skillId', requireScopes('skill:read'), async (c) => {
      const { skillId } = validParams(c, SkillParams);
      return c.json(await getSkill({ ctx: c.var.ctx, input: { skillId } }));
    })
    .patch('/projects/:projectId/skills/:skillId', requireScopes('skill:revoke'), async (c) => {
      const { skillId } = validParams(c, SkillParams);
      const { enabled } = await validBody(c, SetSkillEnabledInput);
      return c.json(await setSkillEnabled({ ctx: c.var.ctx, input: { skillId, enabled } }));
    })
    .delete('/projects/:projectId/skills/:skillId', requireScopes('skill:revoke'), async (c) => {
      const { skillId } = validParams(c, SkillParams);
      return c.json(await deleteSkill({ ctx: c.var.ctx, input: { skillId } }));
    })
    .post('/projects/:projectId/skills/:skillId/versions', requireScopes('skill:write'), async (c) => {
      const { skillId } = validParams(c, SkillParams);
      const body = await validBody(c, SkillVersionBody, { maxBytes: SKILL_VERSION_BODY_MAX_BYTES });
      return c.json(await publishSkillVersion({ ctx: c.var.ctx, input: { skillId, body } }), 201);
    })
    .get('/projects/:projectId/skills/:skillId/versions/:versionId/export', requireScopes('skill:read'), async (c) => {
      const { skillId, versionId } = validParams(c, VersionParams);
      return c.json(await exportSkillVersion({ ctx: c.var.ctx, input: { skillId, versionId } }));
    })
    .patch('/projects/:projectId/skills/:skillId/versions/:versionId/lifecycle', requireScopes('skill:revoke'), async (c) => {
      const { skillId, versionId } = validParams(c, VersionParams);
      const { status } = await validBody(c, SetSkillVersionLifecycleInput);
      return c.json(await setSkillVersionLifecycle({ ctx: c.var.ctx, input: { skillId, versionId, status } }));
    });
}
