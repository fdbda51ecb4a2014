import { Hono } from 'hono';
import * as v from 'valibot';
import { RunListQuery } from '../../domain/tool-calls/queries.ts';
import { Fence, SafeResultInput } from '../../domain/tool-calls/result-envelope.ts';
import { claimToolCall } from '../../services/runtime/tool-calls/index.ts';
import { listToolCalls } from '../../services/runtime/runs/index.ts';
import { releaseToolCall } from '../../services/runtime/tool-calls/index.ts';
import { renewToolCallLease } from '../../services/runtime/tool-calls/index.ts';
import { submitToolResult } from '../../services/runtime/tool-calls/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { PublicToolCallShape, ToolCallClaimShape, ToolCallPageShape, ToolResultSubmissionShape } from '../../domain/public-shapes/tool-calls.ts';

const ProjectParams = v.object({ projectId: Uuid });
const ToolCallParams = v.object({ projectId: Uuid, toolCallId: Uuid });

const FenceBody = v.strictObject({ fence: Fence });
const ResultBody = v.strictObject({ fence: Fence, safeResult: SafeResultInput });
/** Claim takes no options; an empty object (or no body) is accepted. */
const ClaimBody = v.optional(v.strictObject({}));

/**
 * Caller tool calls (spec 2 "Tool calls and approvals"): listing needs `run:read`; claim, renew
 * and release `tool_call:claim`; result `tool_call:submit`.
 */
export function toolCallRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/tool-calls',
      route({
        summary: 'List the tool calls of a run',
        scopes: ['run:read'],
        params: ProjectParams,
        query: RunListQuery,
        responses: { 200: { description: 'A page of tool calls', schema: ToolCallPageShape } },
      }),
      async (c) => {
        validParams(c, ProjectParams);
        return c.json(await listToolCalls({ ctx: c.var.ctx, input: validQuery(c, RunListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/tool-calls/:toolCallId/claim',
      route({
        summary: 'Claim caller work: a lease with its `fence`',
        scopes: ['tool_call:claim'],
        params: ToolCallParams,
        body: ClaimBody,
        responses: { 200: { description: 'The claimed call with `fence` and lease expiry', schema: ToolCallClaimShape } },
      }),
      async (c) => {
        const { toolCallId } = validParams(c, ToolCallParams);
        await validBody(c, ClaimBody);
        return c.json(await claimToolCall({ ctx: c.var.ctx, deps, input: { toolCallId } }));
      },
    )
    .post(
      '/projects/:projectId/tool-calls/:toolCallId/renew',
      route({
        summary: 'Renew the lease with the fence',
        scopes: ['tool_call:claim'],
        params: ToolCallParams,
        body: FenceBody,
        responses: { 200: { description: 'The call with its new lease expiry', schema: PublicToolCallShape } },
      }),
      async (c) => {
        const { toolCallId } = validParams(c, ToolCallParams);
        const { fence } = await validBody(c, FenceBody);
        return c.json(await renewToolCallLease({ ctx: c.var.ctx, input: { toolCallId, fence } }));
      },
    )
    .post(
      '/projects/:projectId/tool-calls/:toolCallId/release',
      route({
        summary: 'Release the lease with the fence',
        scopes: ['tool_call:claim'],
        params: ToolCallParams,
        body: FenceBody,
        responses: { 200: { description: 'The call, pending again', schema: PublicToolCallShape } },
      }),
      async (c) => {
        const { toolCallId } = validParams(c, ToolCallParams);
        const { fence } = await validBody(c, FenceBody);
        return c.json(await releaseToolCall({ ctx: c.var.ctx, input: { toolCallId, fence } }));
      },
    )
    .post(
      '/projects/:projectId/tool-calls/:toolCallId/result',
      route({
        summary: 'Submit the result with the fence',
        scopes: ['tool_call:submit'],
        params: ToolCallParams,
        body: ResultBody,
        responses: {
          202: { description: 'The submission (`normalizedFailure` when the value did not match the output schema)', schema: ToolResultSubmissionShape },
        },
      }),
      async (c) => {
        const { toolCallId } = validParams(c, ToolCallParams);
        const body = await validBody(c, ResultBody);
        return c.json(await submitToolResult({ ctx: c.var.ctx, deps, input: { toolCallId, fence: body.fence, safeResult: body.safeResult } }), 202);
      },
    );
}
