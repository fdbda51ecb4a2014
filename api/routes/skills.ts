import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import { SkillVersionBody } from '../../domain/skills/content.ts';
import { SetSkillVersionLifecycleInput } from '../../domain/skills/lifecycle.ts';
import { SKILL_VERSION_BODY_MAX_BYTES } from '../../domain/skills/limits.ts';
import { CreateSkillInput, SetSkillEnabledInput } from '../../domain/skills/skill.ts';
import { createSkill } from '../../services/configuration/skills/index.ts';
import { deleteSkill } from '../../services/configuration/skills/index.ts';
import { exportSkillVersion } from '../../services/configuration/skills/index.ts';
import { getSkill } from '../../services/configuration/skills/index.ts';
import { listSkills } from '../../services/configuration/skills/index.ts';
import { publishSkillVersion } from '../../services/configuration/skills/index.ts';
import { setSkillEnabled } from '../../services/configuration/skills/index.ts';
import { setSkillVersionLifecycle } from '../../services/configuration/skills/index.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import {
  PublicSkillVersionShape,
  SkillDeletedShape,
  SkillDetailShape,
  SkillEnablementShape,
  SkillPageShape,
  SkillVersionExportShape,
} from '../../domain/public-shapes/skills.ts';

const SkillParams = v.object({ projectId: Uuid, skillId: Uuid });
const VersionParams = v.object({ projectId: Uuid, skillId: Uuid, versionId: Uuid });

/**
 * Skills (spec 2 "Skills"): reads need `skill:read`; package writes (create, versions)
 * `skill:write`; enable/disable, removal and version lifecycle `skill:revoke`.
 */
export function skillRoutes() {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/skills',
      route({
        summary: 'List Skills with their latest versions',
        scopes: ['skill:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of Skills', schema: SkillPageShape } },
      }),
      async (c) => {
        return c.json(await listSkills({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/skills',
      route({
        summary: 'Create a Skill and its version 1',
        scopes: ['skill:write'],
        body: CreateSkillInput,
        responses: { 201: { description: 'The Skill', schema: SkillDetailShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateSkillInput, { maxBytes: SKILL_VERSION_BODY_MAX_BYTES });
        return c.json(await createSkill({ ctx: c.var.ctx, input }), 201);
      },
    )
    .get(
      '/projects/:projectId/skills/:skillId',
      route({
        summary: 'A Skill with all versions and manifests',
        scopes: ['skill:read'],
        params: SkillParams,
        responses: { 200: { description: 'The Skill', schema: SkillDetailShape } },
      }),
      async (c) => {
        const { skillId } = validParams(c, SkillParams);
        return c.json(await getSkill({ ctx: c.var.ctx, input: { skillId } }));
      },
    )
    .patch(
      '/projects/:projectId/skills/:skillId',
      route({
        summary: 'Enable or disable a Skill',
        scopes: ['skill:revoke'],
        params: SkillParams,
        body: SetSkillEnabledInput,
        responses: { 200: { description: '`{id, key, enabled, disabledAt}`', schema: SkillEnablementShape } },
      }),
      async (c) => {
        const { skillId } = validParams(c, SkillParams);
        const { enabled } = await validBody(c, SetSkillEnabledInput);
        return c.json(await setSkillEnabled({ ctx: c.var.ctx, input: { skillId, enabled } }));
      },
    )
    .delete(
      '/projects/:projectId/skills/:skillId',
      route({
        summary: 'Remove a Skill',
        scopes: ['skill:revoke'],
        params: SkillParams,
        responses: { 200: { description: '`{id, key, deleted: true}`', schema: SkillDeletedShape } },
      }),
      async (c) => {
        const { skillId } = validParams(c, SkillParams);
        return c.json(await deleteSkill({ ctx: c.var.ctx, input: { skillId } }));
      },
    )
    .post(
      '/projects/:projectId/skills/:skillId/versions',
      route({
        summary: 'Publish the next version',
        scopes: ['skill:write'],
        params: SkillParams,
        body: SkillVersionBody,
        responses: { 201: { description: 'The new version', schema: PublicSkillVersionShape } },
      }),
      async (c) => {
        const { skillId } = validParams(c, SkillParams);
        const body = await validBody(c, SkillVersionBody, { maxBytes: SKILL_VERSION_BODY_MAX_BYTES });
        return c.json(await publishSkillVersion({ ctx: c.var.ctx, input: { skillId, body } }), 201);
      },
    )
    .get(
      '/projects/:projectId/skills/:skillId/versions/:versionId/export',
      route({
        summary: 'Exact instructions and resource bytes of a version',
        scopes: ['skill:read'],
        params: VersionParams,
        responses: { 200: { description: 'The exported version', schema: SkillVersionExportShape } },
      }),
      async (c) => {
        const { skillId, versionId } = validParams(c, VersionParams);
        return c.json(await exportSkillVersion({ ctx: c.var.ctx, input: { skillId, versionId } }));
      },
    )
    .patch(
      '/projects/:projectId/skills/:skillId/versions/:versionId/lifecycle',
      route({
        summary: 'Deprecate or revoke a version',
        scopes: ['skill:revoke'],
        params: VersionParams,
        body: SetSkillVersionLifecycleInput,
        responses: { 200: { description: 'The version', schema: PublicSkillVersionShape } },
      }),
      async (c) => {
        const { skillId, versionId } = validParams(c, VersionParams);
        const { status } = await validBody(c, SetSkillVersionLifecycleInput);
        return c.json(await setSkillVersionLifecycle({ ctx: c.var.ctx, input: { skillId, versionId, status } }));
      },
    );
}
