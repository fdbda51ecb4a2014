import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import {
  CreateDraftDirectoryInput,
  CreateSkillDraftInput,
  DeleteDraftEntryQuery,
  PublishSkillDraftInput,
  PutDraftFileInput,
  UpdateSkillDraftInput,
} from '../../domain/skills/drafts.ts';
import { SKILL_DRAFT_FILE_BODY_MAX_BYTES, SKILL_DRAFT_METADATA_BODY_MAX_BYTES } from '../../domain/skills/limits.ts';
import { createSkillDraftDirectory } from '../../services/configuration/skill-drafts/index.ts';
import { createSkillDraft } from '../../services/configuration/skill-drafts/index.ts';
import { deleteSkillDraftEntry } from '../../services/configuration/skill-drafts/index.ts';
import { discardSkillDraft } from '../../services/configuration/skill-drafts/index.ts';
import { getSkillDraft } from '../../services/configuration/skill-drafts/index.ts';
import { listSkillDrafts } from '../../services/configuration/skill-drafts/index.ts';
import { publishSkillDraft } from '../../services/configuration/skill-drafts/index.ts';
import { putSkillDraftFile } from '../../services/configuration/skill-drafts/index.ts';
import { updateSkillDraft } from '../../services/configuration/skill-drafts/index.ts';
import { validateSkillDraft } from '../../services/configuration/skill-drafts/index.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import {
  CreatedDirectoryShape,
  DeletedEntryShape,
  PublicSkillDraftShape,
  PublishedSkillDraftShape,
  PutFileResultShape,
  SkillDraftDiscardedShape,
  SkillDraftPageShape,
  SkillDraftValidationShape,
} from '../../domain/public-shapes/skills.ts';

const DraftParams = v.object({ projectId: Uuid, draftId: Uuid });
const EmptyBody = v.optional(v.strictObject({}), {});

/**
 * Skill drafts (spec 2 "Skills"): mutable packages staged before publication. Reads need
 * `skill:read`; every change, validation and publication `skill:write`. Paths are strings in the
 * database only; nothing here touches a filesystem.
 */
export function skillDraftRoutes() {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/skill-drafts',
      route({
        summary: 'List Skill drafts',
        scopes: ['skill:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of drafts', schema: SkillDraftPageShape } },
      }),
      async (c) => {
        return c.json(await listSkillDrafts({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/skill-drafts',
      route({
        summary: 'Create a blank draft, or clone a published version',
        scopes: ['skill:write'],
        body: CreateSkillDraftInput,
        responses: { 201: { description: 'The draft', schema: PublicSkillDraftShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateSkillDraftInput);
        return c.json(await createSkillDraft({ ctx: c.var.ctx, input }), 201);
      },
    )
    .get(
      '/projects/:projectId/skill-drafts/:draftId',
      route({
        summary: 'Draft metadata, folders and file bytes',
        scopes: ['skill:read'],
        params: DraftParams,
        responses: { 200: { description: 'The draft', schema: PublicSkillDraftShape } },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        return c.json(await getSkillDraft({ ctx: c.var.ctx, input: { draftId } }));
      },
    )
    .patch(
      '/projects/:projectId/skill-drafts/:draftId',
      route({
        summary: 'Save draft metadata and instructions',
        scopes: ['skill:write'],
        params: DraftParams,
        body: UpdateSkillDraftInput,
        responses: { 200: { description: 'The draft', schema: PublicSkillDraftShape } },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        const changes = await validBody(c, UpdateSkillDraftInput, { maxBytes: SKILL_DRAFT_METADATA_BODY_MAX_BYTES });
        return c.json(await updateSkillDraft({ ctx: c.var.ctx, input: { draftId, changes } }));
      },
    )
    .delete(
      '/projects/:projectId/skill-drafts/:draftId',
      route({
        summary: 'Discard a draft',
        scopes: ['skill:write'],
        params: DraftParams,
        responses: { 200: { description: 'The discarded draft id', schema: SkillDraftDiscardedShape } },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        return c.json(await discardSkillDraft({ ctx: c.var.ctx, input: { draftId } }));
      },
    )
    .post(
      '/projects/:projectId/skill-drafts/:draftId/directories',
      route({
        summary: 'Create a folder and its missing parents',
        scopes: ['skill:write'],
        params: DraftParams,
        body: CreateDraftDirectoryInput,
        responses: {
          200: { description: 'The folder existed', schema: CreatedDirectoryShape },
          201: { description: 'The folder was created', schema: CreatedDirectoryShape },
        },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        const { path } = await validBody(c, CreateDraftDirectoryInput);
        const result = await createSkillDraftDirectory({ ctx: c.var.ctx, input: { draftId, path } });
        return c.json(result, result.created ? 201 : 200);
      },
    )
    .put(
      '/projects/:projectId/skill-drafts/:draftId/files',
      route({
        summary: 'Write a file (UTF-8 Markdown)',
        scopes: ['skill:write'],
        params: DraftParams,
        body: PutDraftFileInput,
        responses: {
          200: { description: 'The file was replaced', schema: PutFileResultShape },
          201: { description: 'The file was created', schema: PutFileResultShape },
        },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        const file = await validBody(c, PutDraftFileInput, { maxBytes: SKILL_DRAFT_FILE_BODY_MAX_BYTES });
        const result = await putSkillDraftFile({ ctx: c.var.ctx, input: { draftId, ...file } });
        return c.json(result, result.created ? 201 : 200);
      },
    )
    .delete(
      '/projects/:projectId/skill-drafts/:draftId/entries',
      route({
        summary: 'Delete a file or folder (`recursive=true` for a non-empty folder)',
        scopes: ['skill:write'],
        params: DraftParams,
        query: DeleteDraftEntryQuery,
        responses: { 200: { description: 'The deletion', schema: DeletedEntryShape } },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        const query = validQuery(c, DeleteDraftEntryQuery);
        return c.json(await deleteSkillDraftEntry({ ctx: c.var.ctx, input: { draftId, ...query } }));
      },
    )
    .post(
      '/projects/:projectId/skill-drafts/:draftId/validate',
      route({
        summary: 'Validate the staged package',
        scopes: ['skill:write'],
        params: DraftParams,
        body: EmptyBody,
        responses: { 200: { description: 'The validation report', schema: SkillDraftValidationShape } },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        await validBody(c, EmptyBody);
        return c.json(await validateSkillDraft({ ctx: c.var.ctx, input: { draftId } }));
      },
    )
    .post(
      '/projects/:projectId/skill-drafts/:draftId/publish',
      route({
        summary: 'Publish the draft as an immutable version',
        scopes: ['skill:write'],
        params: DraftParams,
        body: PublishSkillDraftInput,
        responses: { 201: { description: 'The published version', schema: PublishedSkillDraftShape } },
      }),
      async (c) => {
        const { draftId } = validParams(c, DraftParams);
        const body = await validBody(c, PublishSkillDraftInput);
        return c.json(await publishSkillDraft({ ctx: c.var.ctx, input: { draftId, body } }), 201);
      },
    );
}
