import { Hono } from 'hono';
import * as v from 'valibot';
import { AddMemberByEmailInput, ChangeRoleInput, UpdateMemberInput, UpsertMemberInput } from '../../domain/members.ts';
import { addMemberByEmail } from '../../services/access/members/index.ts';
import { listMembers } from '../../services/access/members/index.ts';
import { removeMember } from '../../services/access/members/index.ts';
import { removeProjectAccess } from '../../services/access/members/index.ts';
import { updateMember } from '../../services/access/members/index.ts';
import { upsertMember } from '../../services/access/members/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams } from '../validation.ts';
import { MemberListShape, MemberRemovedShape, PublicMemberShape } from '../../domain/public-shapes/access.ts';

const MemberParams = v.object({ projectId: Uuid, memberId: Uuid });

/**
 * Members (spec 2 "Organizations, projects, members"). The bodies depend on the sign-in mode:
 * edge-proxy adds people by the email of a verified sign-in and changes only `{role}`; the other
 * modes add by `{subject, role, scopes}`.
 */
export function memberRoutes(deps: AppDeps) {
  const edge = deps.settings.authMode === 'edge_proxy';
  const mode = { authMode: deps.settings.authMode };
  const memberBody = edge ? AddMemberByEmailInput : UpsertMemberInput;
  const changeBody = edge ? ChangeRoleInput : UpdateMemberInput;
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/members',
      route({
        summary: 'List principals with roles and scopes',
        scopes: ['project:admin'],
        responses: { 200: { description: 'The members', schema: MemberListShape } },
      }),
      async (c) => c.json(await listMembers({ ctx: c.var.ctx })),
    )
    .post(
      '/projects/:projectId/members',
      route({
        summary: 'Create or update a member (edge-proxy mode: add a verified person by email)',
        scopes: ['project:admin'],
        body: memberBody,
        responses: {
          200: { description: 'The member, updated', schema: PublicMemberShape },
          201: { description: 'The member, created', schema: PublicMemberShape },
        },
      }),
      async (c) => {
        const { member, created } = edge
          ? await addMemberByEmail({ ctx: c.var.ctx, input: await validBody(c, AddMemberByEmailInput) })
          : await upsertMember({ ctx: c.var.ctx, input: await validBody(c, UpsertMemberInput) });
        return c.json(member, created ? 201 : 200);
      },
    )
    .patch(
      '/projects/:projectId/members/:memberId',
      route({
        summary: "Change a member's role (and scopes outside edge-proxy mode)",
        scopes: ['project:admin'],
        params: MemberParams,
        body: changeBody,
        responses: { 200: { description: 'The member', schema: PublicMemberShape } },
      }),
      async (c) => {
        const { memberId } = validParams(c, MemberParams);
        const input = edge ? await validBody(c, ChangeRoleInput) : await validBody(c, UpdateMemberInput);
        return c.json(await updateMember({ ctx: c.var.ctx, input: { memberId, ...input } }));
      },
    )
    .delete(
      '/projects/:projectId/members/:memberId',
      route({
        summary: 'Remove a member from the organization and its projects',
        scopes: ['project:admin'],
        params: MemberParams,
        responses: { 200: { description: 'The removal', schema: MemberRemovedShape } },
      }),
      async (c) => {
        const { memberId } = validParams(c, MemberParams);
        return c.json(await removeMember({ ctx: c.var.ctx, deps: mode, input: { memberId } }));
      },
    )
    .delete(
      '/projects/:projectId/members/:memberId/project-access',
      route({
        summary: 'Edge-proxy mode: remove access to this project, keep organization access',
        scopes: ['project:admin'],
        params: MemberParams,
        responses: { 200: { description: 'The removal', schema: MemberRemovedShape } },
      }),
      async (c) => {
        const { memberId } = validParams(c, MemberParams);
        return c.json(await removeProjectAccess({ ctx: c.var.ctx, deps: mode, input: { memberId } }));
      },
    );
}
