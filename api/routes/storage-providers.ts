import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import { CreateStorageProviderInput, ObjectListingQuery, StorageCredentialInput } from '../../domain/storage/provider-input.ts';
import { createStorageProvider } from '../../services/configuration/storage-providers/index.ts';
import { listStorageProviders } from '../../services/configuration/storage-providers/index.ts';
import { listStoredObjects } from '../../services/configuration/storage-providers/index.ts';
import { rotateStorageProviderCredential, setDefaultStorageProvider } from '../../services/configuration/storage-providers/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { PublicStorageProviderShape, StorageProviderPageShape, StoredObjectListingShape } from '../../domain/public-shapes/connections.ts';

const ProviderParams = v.object({ projectId: Uuid, providerId: Uuid });

/** Organization-shared object-storage connections (spec 2): reads `agent:read`, writes `project:admin`. */
export function storageProviderRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/storage-providers',
      route({
        summary: 'List object-storage connections (safe metadata)',
        scopes: ['agent:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of connections', schema: StorageProviderPageShape } },
      }),
      async (c) => {
        return c.json(await listStorageProviders({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/storage-providers',
      route({
        summary: 'Create an object-storage connection',
        scopes: ['project:admin'],
        body: CreateStorageProviderInput,
        responses: { 201: { description: 'The connection', schema: PublicStorageProviderShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateStorageProviderInput);
        return c.json(await createStorageProvider({ ctx: c.var.ctx, keyring: deps.keyring, policy: deps.storagePolicy, input }), 201);
      },
    )
    .put(
      '/projects/:projectId/storage-providers/:providerId/credential',
      route({
        summary: 'Rotate write-only credentials',
        scopes: ['project:admin'],
        params: ProviderParams,
        body: StorageCredentialInput,
        responses: { 200: { description: 'The connection', schema: PublicStorageProviderShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        const body = await validBody(c, StorageCredentialInput);
        return c.json(await rotateStorageProviderCredential({ ctx: c.var.ctx, keyring: deps.keyring, input: { providerId, ...body } }));
      },
    )
    .put(
      '/projects/:projectId/storage-providers/:providerId/default',
      route({
        summary: 'Make the connection the organization default',
        scopes: ['project:admin'],
        params: ProviderParams,
        responses: { 200: { description: 'The connection', schema: PublicStorageProviderShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        return c.json(await setDefaultStorageProvider({ ctx: c.var.ctx, input: { providerId } }));
      },
    )
    .get(
      '/projects/:projectId/storage-providers/:providerId/objects',
      route({
        summary: 'One folder level of stored objects',
        scopes: ['agent:read'],
        params: ProviderParams,
        query: ObjectListingQuery,
        responses: { 200: { description: 'The object listing', schema: StoredObjectListingShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        const query = validQuery(c, ObjectListingQuery);
        return c.json(await listStoredObjects({ ctx: c.var.ctx, keyring: deps.keyring, policy: deps.storagePolicy, input: { providerId, ...query } }));
      },
    );
}
