import * as v from 'valibot';
import { ListLimit } from '../pagination.ts';

/** `GET /model-catalog` query: `providerId` required, `search` optional, `limit` 1-200 (default 50). */
export const CatalogQuery = v.object({
  providerId: v.pipe(v.string('providerId is required'), v.uuid('providerId must be a UUID')),
  search: v.optional(v.pipe(v.string(), v.maxLength(200, 'search must be at most 200 characters'))),
  limit: ListLimit,
});
export type CatalogQuery = v.InferOutput<typeof CatalogQuery>;

/** What the catalog verb takes (the route's query, parsed). */
export const CatalogRequest = v.object({
  providerId: v.pipe(v.string(), v.uuid('providerId must be a UUID')),
  search: v.optional(v.pipe(v.string(), v.maxLength(200, 'search must be at most 200 characters'))),
  limit: v.pipe(v.number(), v.integer(), v.minValue(1, 'limit must be from 1 to 200'), v.maxValue(200, 'limit must be from 1 to 200')),
});
export type CatalogRequest = v.InferOutput<typeof CatalogRequest>;
