import { Hono } from 'hono';
import * as v from 'valibot';
import { RunListQuery } from '../../domain/tool-calls/queries.ts';
import { ApprovalDecision, decideApproval } from '../../services/runtime/approvals/index.ts';
import { listApprovals } from '../../services/runtime/approvals/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { ApprovalPageShape, PublicApprovalShape } from '../../domain/public-shapes/tool-calls.ts';

const ProjectParams = v.object({ projectId: Uuid });
const ApprovalParams = v.object({ projectId: Uuid, approvalId: Uuid });

/** Approval gates (spec 2 "Tool calls and approvals"): listing needs `run:read`, deciding `approval:resolve`. */
export function approvalRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/approvals',
      route({
        summary: 'List the approvals of a run',
        scopes: ['run:read'],
        params: ProjectParams,
        query: RunListQuery,
        responses: { 200: { description: 'A page of approvals', schema: ApprovalPageShape } },
      }),
      async (c) => {
        validParams(c, ProjectParams);
        return c.json(await listApprovals({ ctx: c.var.ctx, input: validQuery(c, RunListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/approvals/:approvalId/decision',
      route({
        summary: 'Approve or deny',
        scopes: ['approval:resolve'],
        params: ApprovalParams,
        body: ApprovalDecision,
        responses: { 200: { description: 'The decided approval', schema: PublicApprovalShape } },
      }),
      async (c) => {
        const { approvalId } = validParams(c, ApprovalParams);
        const decision = await validBody(c, ApprovalDecision);
        return c.json(await decideApproval({ ctx: c.var.ctx, deps, input: { approvalId, ...decision } }));
      },
    );
}
