import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateModelPresetInput, UpdateModelPresetInput } from '../../domain/model-presets/create-input.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { archiveModelPreset } from '../../services/configuration/model-presets/index.ts';
import { createModelPreset } from '../../services/configuration/model-presets/index.ts';
import { listModelPresets } from '../../services/configuration/model-presets/index.ts';
import { updateModelPresetPrices } from '../../services/configuration/model-presets/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { ModelPresetArchivedShape, ModelPresetPageShape, PublicModelPresetShape } from '../../domain/public-shapes/connections.ts';

/** Project model presets plus the server's deployment presets (spec 2). */
const PresetParams = v.object({ projectId: Uuid, presetId: Uuid });

export function modelPresetRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/model-presets',
      route({
        summary: 'List deployment, project and unavailable legacy presets',
        scopes: ['agent:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of presets', schema: ModelPresetPageShape } },
      }),
      async (c) => {
        const input = validQuery(c, ListQuery);
        return c.json(await listModelPresets({ ctx: c.var.ctx, deploymentPresets: deps.deploymentPresets, input }));
      },
    )
    .post(
      '/projects/:projectId/model-presets',
      route({
        summary: 'Create a project model preset',
        scopes: ['project:admin'],
        body: CreateModelPresetInput,
        responses: { 201: { description: 'The preset', schema: PublicModelPresetShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateModelPresetInput);
        const created = await createModelPreset({
          ctx: c.var.ctx,
          keyring: deps.keyring,
          baseUrls: deps.settings.modelBaseUrls,
          deploymentPresets: deps.deploymentPresets,
          currency: deps.settings.currency,
          input,
        });
        return c.json(created, 201);
      },
    )
    .patch(
      '/projects/:projectId/model-presets/:presetId',
      route({
        summary: "Set a project preset's prices per million tokens (`null`: unpriced); later calls cost at them",
        scopes: ['project:admin'],
        params: PresetParams,
        body: UpdateModelPresetInput,
        responses: { 200: { description: 'The preset', schema: PublicModelPresetShape } },
      }),
      async (c) => {
        const { presetId } = validParams(c, PresetParams);
        const body = await validBody(c, UpdateModelPresetInput);
        return c.json(await updateModelPresetPrices({ ctx: c.var.ctx, deploymentPresets: deps.deploymentPresets, input: { presetId, prices: body.prices } }));
      },
    )
    .delete(
      '/projects/:projectId/model-presets/:presetId',
      route({
        summary: 'Archive a preset',
        scopes: ['project:admin'],
        params: PresetParams,
        responses: { 200: { description: '`{id, key, archived: true}`', schema: ModelPresetArchivedShape } },
      }),
      async (c) => {
        const { presetId } = validParams(c, PresetParams);
        return c.json(await archiveModelPreset({ ctx: c.var.ctx, deploymentPresets: deps.deploymentPresets, input: { presetId } }));
      },
    );
}
