/**
 * Memory limits (docs/decisions/memory-stores.md): those the hosted Managed Agents API documents
 * for its memory stores, so a store works the same natively and through the compatible API.
 */
export const MEMORY_STORE_NAME_MAX_CHARS = 255;
export const MEMORY_STORE_DESCRIPTION_MAX_CHARS = 1_024;
export const MEMORY_STORE_METADATA_MAX_PAIRS = 16;
export const MEMORY_STORE_METADATA_KEY_MAX_CHARS = 64;
export const MEMORY_STORE_METADATA_VALUE_MAX_CHARS = 512;
/** A memory's content: UTF-8 text of at most 100 kB. */
export const MEMORY_CONTENT_MAX_BYTES = 102_400;
export const MEMORY_PATH_MAX_BYTES = 1_024;
export const MEMORY_PATH_MAX_SEGMENTS = 20;
/** A list page with `view=full` holds at most this many items (their content is large). */
export const MEMORY_FULL_VIEW_MAX_LIMIT = 20;
/** A session takes at most this many stores. */
export const SESSION_MEMORY_STORES_MAX = 8;
