import * as v from 'valibot';

/**
 * Building blocks of the public response shapes (spec 1 conventions): UUID ids, ISO 8601 UTC
 * timestamps with milliseconds, and the list envelope. The shapes are strict objects: a field
 * the service sends but the shape does not name is a drift the response check reports.
 */
export const Id = v.pipe(v.string(), v.uuid());
export const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/** `{data, pageInfo: {nextCursor}}`; `nextCursor` is null on the last page. */
export const page = <T extends v.GenericSchema>(item: T) =>
  v.strictObject({ data: v.array(item), pageInfo: v.strictObject({ nextCursor: v.nullable(v.string()) }) });

/** An amount of money in the installation's currency (`SVC_CURRENCY`), exact to the billionth. */
export const Cost = v.pipe(v.number(), v.minValue(0));
