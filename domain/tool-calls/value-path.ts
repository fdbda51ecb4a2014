/**
 * Public paths of tool values (`arguments.items[0].name`, `safeResult.value.total`) in the same
 * JavaScript-style notation as config paths: `[n]` for array indexes, `.key` for identifiers and
 * `["x-y"]` for any other key.
 */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function childValuePath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return IDENTIFIER.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** The parts of a JSON Schema validation error (ajv's `ErrorObject`) that locate it. */
export type SchemaErrorLocation = { instancePath: string; keyword: string; params: Record<string, unknown> };

/**
 * Turns a validator error into a path under `root`. The JSON pointer is walked over the value
 * itself so an array index and an object key that looks like a number render differently; a
 * missing or unexpected property is appended, since that is where the caller must look.
 */
export function schemaErrorPath(root: string, value: unknown, error: SchemaErrorLocation): string {
  let path = root;
  let current: unknown = value;
  const segments =
    error.instancePath === ''
      ? []
      : error.instancePath
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (const segment of segments) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) {
      path = childValuePath(path, Number(segment));
      current = current[Number(segment)];
    } else {
      path = childValuePath(path, segment);
      current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[segment] : undefined;
    }
  }
  const extra =
    error.keyword === 'required' ? error.params.missingProperty : error.keyword === 'additionalProperties' ? error.params.additionalProperty : undefined;
  return typeof extra === 'string' ? childValuePath(path, extra) : path;
}
