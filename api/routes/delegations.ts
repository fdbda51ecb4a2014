import { Hono } from 'hono';
import * as v from 'valibot';
import { DELEGATION_MESSAGE_MAX_LENGTH } from '../../domain/runs/delegation.ts';
import { cancelDelegation } from '../../services/runtime/delegations/index.ts';
import { messageDelegation } from '../../services/runtime/delegations/index.ts';
import { delegationsOfSession, findDelegation, toPublicDelegations } from '../../services/runtime/delegations/index.ts';
import { findSession } from '../../services/runtime/runs/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { idempotencyKeyOf, Uuid, validBody, validParams } from '../validation.ts';
import { DelegationListShape, DelegationMessageAcceptedShape, PublicDelegationShape } from '../../domain/public-shapes/delegations.ts';

const SessionParams = v.object({ projectId: Uuid, sessionId: Uuid });
const DelegationParams = v.object({ projectId: Uuid, sessionId: Uuid, delegationId: Uuid });
const MessageBody = v.strictObject({
  message: v.pipe(
    v.string('message must be a string'),
    v.minLength(1, 'message must not be empty'),
    v.maxLength(DELEGATION_MESSAGE_MAX_LENGTH, `message must be at most ${DELEGATION_MESSAGE_MAX_LENGTH} characters`),
  ),
});

/**
 * Delegations of a coordinator session (spec 2 "Delegations"; paths not shown there, decided in
 * docs/decisions/delegation-events-routes-and-records.md): read `delegation:read`; message `delegation:message` plus
 * `run:create` (202); cancel `delegation:cancel` plus `run:cancel`.
 */
export function delegationRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/sessions/:sessionId/delegations',
      route({
        summary: 'The delegations of a coordinator session',
        scopes: ['delegation:read'],
        params: SessionParams,
        responses: { 200: { description: 'The delegations', schema: DelegationListShape } },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        const session = await findSession({ ctx: c.var.ctx, input: { sessionId } });
        return c.json({ data: await delegationsOfSession({ ctx: c.var.ctx, input: { coordinatorSessionId: session.id } }) });
      },
    )
    .get(
      '/projects/:projectId/sessions/:sessionId/delegations/:delegationId',
      route({
        summary: 'One delegation',
        scopes: ['delegation:read'],
        params: DelegationParams,
        responses: { 200: { description: 'The delegation', schema: PublicDelegationShape } },
      }),
      async (c) => {
        const { sessionId, delegationId } = validParams(c, DelegationParams);
        const [delegation] = await toPublicDelegations({
          ctx: c.var.ctx,
          input: { rows: [await findDelegation({ ctx: c.var.ctx, input: { sessionId, delegationId } })] },
        });
        return c.json(delegation);
      },
    )
    .post(
      '/projects/:projectId/sessions/:sessionId/delegations/:delegationId/messages',
      route({
        summary: "Send a message to a delegation's child session",
        scopes: ['delegation:message', 'run:create'],
        params: DelegationParams,
        body: MessageBody,
        responses: { 202: { description: 'The child run', schema: DelegationMessageAcceptedShape } },
      }),
      async (c) => {
        const { sessionId, delegationId } = validParams(c, DelegationParams);
        const { message } = await validBody(c, MessageBody);
        const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
        return c.json(await messageDelegation({ ctx: c.var.ctx, deps, input: { sessionId, delegationId, message, idempotencyKey } }), 202);
      },
    )
    .post(
      '/projects/:projectId/sessions/:sessionId/delegations/:delegationId/cancel',
      route({
        summary: 'Cancel a delegation',
        scopes: ['delegation:cancel', 'run:cancel'],
        params: DelegationParams,
        responses: { 200: { description: 'The delegation', schema: PublicDelegationShape } },
      }),
      async (c) => {
        const { sessionId, delegationId } = validParams(c, DelegationParams);
        return c.json(await cancelDelegation({ ctx: c.var.ctx, deps, input: { sessionId, delegationId } }));
      },
    );
}
