import { isUuid } from '../../../domain/uuid.ts';

/**
 * Whether an id the SDK sent can be one of ours (our UUIDs are used verbatim as CMA ids). Any
 * other id names nothing here, and must not reach PostgreSQL as a UUID.
 */
export const isOurId = (id: string): boolean => isUuid(id);
