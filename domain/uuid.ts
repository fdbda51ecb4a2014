/** The text form of a UUID (RFC 9562, any version), as this service issues and accepts ids. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in either case: what a caller may send as one of our ids. */
export const isUuid = (value: string): boolean => UUID.test(value);

/**
 * Whether `value` is a UUID in lowercase, as PostgreSQL prints one: every id this service wrote
 * into an object key or a cursor. A name in another case there was not written by us.
 */
export const isLowercaseUuid = (value: string): boolean => UUID.test(value) && value === value.toLowerCase();
