import { Hono } from 'hono';
import * as v from 'valibot';
import { UpdateMemberInput, UpsertMemberInput } from '../../domain/members.ts';
import { listMembers } from '../../services/members/read.ts';
import { removeMember } from '../../services/members/remove.ts';
import { updateMember } from '../../services/members/update.ts';
import { upsertMember } from '../../services/members/upsert.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams } from '../validation.ts';

const MemberParams = v.object({ projectId: Uuid, memberId: Uuid });

export function memberRoutes() {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/members', requireScopes('project:admin'), async (c) => c.json(await listMembers({ ctx: c.var.ctx })))
    .post('/projects/:projectId/members', requireScopes('project:admin'), async (c) => {
      const input = await validBody(c, UpsertMemberInput);
      const { member, created } = await upsertMember({ ctx: c.var.ctx, input });
      return c.json(member, created ? 201 : 200);
    })
    .patch('/projects/:projectId/members/:memberId', requireScopes('project:admin'), async (c) => {
      const { memberId } = validParams(c, MemberParams);
      const input = await validBody(c, UpdateMemberInput);
      return c.json(await updateMember({ ctx: c.var.ctx, input: { memberId, ...input } }));
    })
    .delete('/projects/:projectId/members/:memberId', requireScopes('project:admin'), async (c) => {
      const { memberId } = validParams(c, MemberParams);
      return c.json(await removeMember({ ctx: c.var.ctx, input: { memberId } }));
    });
}
