const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether an id the SDK sent can be one of ours (our UUIDs are used verbatim as CMA ids). Any
 * other id names nothing here, and must not reach PostgreSQL as a UUID.
 */
export const isOurId = (id: string): boolean => UUID.test(id);
