import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateEventWebhookInput, RotateEventWebhookCredentialInput, UpdateEventWebhookInput } from '../../domain/webhooks/inputs.ts';
import { createEventWebhook } from '../../services/configuration/event-webhooks/index.ts';
import { deleteEventWebhook } from '../../services/configuration/event-webhooks/index.ts';
import { getEventWebhook, listEventWebhooks } from '../../services/configuration/event-webhooks/index.ts';
import { rotateEventWebhookCredential } from '../../services/configuration/event-webhooks/index.ts';
import { updateEventWebhook } from '../../services/configuration/event-webhooks/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams } from '../validation.ts';
import { EventWebhookDeletedShape, EventWebhookListShape, PublicEventWebhookShape } from '../../domain/public-shapes/event-webhooks.ts';

const WebhookParams = v.object({ projectId: Uuid, webhookId: Uuid });

/** Project event webhooks (spec 2 "Event webhooks"): every route needs `project:admin`. */
export function eventWebhookRoutes(deps: AppDeps) {
  const policy = { allowPrivateNetwork: deps.settings.outboundAllowPrivateNetwork };
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/event-webhooks',
      route({
        summary: 'List event webhooks with delivery status',
        scopes: ['project:admin'],
        responses: { 200: { description: 'The webhooks and the deployment flags', schema: EventWebhookListShape } },
      }),
      async (c) => {
        return c.json(await listEventWebhooks({ ctx: c.var.ctx, keyring: deps.keyring, policy }));
      },
    )
    .post(
      '/projects/:projectId/event-webhooks',
      route({
        summary: 'Create an event webhook',
        scopes: ['project:admin'],
        body: CreateEventWebhookInput,
        responses: { 201: { description: 'The webhook', schema: PublicEventWebhookShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateEventWebhookInput);
        return c.json(await createEventWebhook({ ctx: c.var.ctx, keyring: deps.keyring, policy, input }), 201);
      },
    )
    .get(
      '/projects/:projectId/event-webhooks/:webhookId',
      route({
        summary: 'A webhook with its delivery status and last error',
        scopes: ['project:admin'],
        params: WebhookParams,
        responses: { 200: { description: 'The webhook', schema: PublicEventWebhookShape } },
      }),
      async (c) => {
        const { webhookId } = validParams(c, WebhookParams);
        return c.json(await getEventWebhook({ ctx: c.var.ctx, input: { webhookId } }));
      },
    )
    .patch(
      '/projects/:projectId/event-webhooks/:webhookId',
      route({
        summary: 'Change a webhook',
        scopes: ['project:admin'],
        params: WebhookParams,
        body: UpdateEventWebhookInput,
        responses: { 200: { description: 'The webhook', schema: PublicEventWebhookShape } },
      }),
      async (c) => {
        const { webhookId } = validParams(c, WebhookParams);
        const body = await validBody(c, UpdateEventWebhookInput);
        return c.json(await updateEventWebhook({ ctx: c.var.ctx, policy, input: { webhookId, ...body } }));
      },
    )
    .put(
      '/projects/:projectId/event-webhooks/:webhookId/credential',
      route({
        summary: 'Rotate the signing secret',
        scopes: ['project:admin'],
        params: WebhookParams,
        body: RotateEventWebhookCredentialInput,
        responses: { 200: { description: 'The webhook', schema: PublicEventWebhookShape } },
      }),
      async (c) => {
        const { webhookId } = validParams(c, WebhookParams);
        const body = await validBody(c, RotateEventWebhookCredentialInput);
        return c.json(await rotateEventWebhookCredential({ ctx: c.var.ctx, keyring: deps.keyring, input: { webhookId, ...body } }));
      },
    )
    .delete(
      '/projects/:projectId/event-webhooks/:webhookId',
      route({
        summary: 'Delete a webhook',
        scopes: ['project:admin'],
        params: WebhookParams,
        responses: { 200: { description: '`{id, deleted: true}`', schema: EventWebhookDeletedShape } },
      }),
      async (c) => {
        const { webhookId } = validParams(c, WebhookParams);
        return c.json(await deleteEventWebhook({ ctx: c.var.ctx, input: { webhookId } }));
      },
    );
}
