/**
 * Renders the service's OpenAPI document (`GET /v1/openapi.json`) as TypeScript types for the
 * client: `Paths` maps each path and method to its parameters, request body and success
 * answers. Our own small generator (JSON Schema as @valibot/to-json-schema writes it): the usual
 * openapi-typescript needs TypeScript 5's compiler API. Pure: document in, source text out.
 */
type Schema = Record<string, any>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

export function renderTypes(document: Schema): string {
  const lines = [
    "// Generated from the service's OpenAPI document by client/scripts/render-types.ts. Do not edit:",
    '// regenerate with `UPDATE_CLIENT_TYPES=1 npx vitest run test/integration/client-types.test.ts`.',
    '',
  ];
  // Named shapes (the answers' `$ref`s) first, so operations read as `PublicRun`, `SessionDetail`...
  const components = document.components.schemas as Record<string, Schema>;
  lines.push(
    '/** A page of a list route: `nextCursor` is null on the last page. */',
    'export type Page<T> = { data: Array<T>; pageInfo: { nextCursor: string | null } };',
    '',
  );
  for (const [name, schema] of Object.entries(components)) {
    if (schema.description) lines.push(`/** ${String(schema.description).replace(/\*\//g, '*\\/')} */`);
    lines.push(`export type ${name} = ${pageType(schema) ?? extendedType(name, schema, components) ?? typeOf(schema, 0)};`, '');
  }
  lines.push('export type Paths = {');
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Schema>>)) {
    lines.push(`  ${JSON.stringify(path)}: {`);
    for (const [method, operation] of Object.entries(methods)) {
      lines.push(`    /** ${String(operation.summary ?? '').replace(/\*\//g, '*\\/')} */`);
      lines.push(`    ${method}: {`);
      const parameters = (operation.parameters ?? []) as Schema[];
      for (const where of ['path', 'query', 'header'] as const) {
        const list = parameters.filter((parameter) => parameter.in === where);
        if (list.length === 0) continue;
        const fields = list.map((parameter) => `${key(parameter.name)}${parameter.required ? '' : '?'}: ${typeOf(parameter.schema ?? {}, 0)}`).join('; ');
        lines.push(`      ${where}: { ${fields} };`);
      }
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body) lines.push(`      body${operation.requestBody.required ? '' : '?'}: ${typeOf(body, 3)};`);
      const answers = Object.entries(operation.responses as Record<string, Schema>).filter(([status]) => Number(status) < 400);
      lines.push('      responses: {');
      for (const [status, response] of answers) {
        const content = response.content ?? {};
        const type = content['application/json']
          ? typeOf(content['application/json'].schema ?? {}, 4)
          : content['text/event-stream'] || content['application/octet-stream']
            ? 'ReadableStream<Uint8Array>'
            : 'void';
        lines.push(`        ${status}: ${type};`);
      }
      lines.push('      };', '    };');
    }
    lines.push('  };');
  }
  lines.push('};', '');
  return lines.join('\n');
}

/** `{data: Array<X>, pageInfo: {nextCursor}}` with nothing else → `Page<X>`. */
function pageType(schema: Schema): string | null {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties || Object.keys(properties).join() !== 'data,pageInfo' || !properties.data?.items?.$ref) return null;
  if (Object.keys(properties.pageInfo?.properties ?? {}).join() !== 'nextCursor') return null;
  return `Page<${typeOf(properties.data.items, 0)}>`;
}

/**
 * A shape made of another named shape's fields plus its own (the service spreads one valibot
 * object into another) → `Base & { extra }`, with the largest such base: each field is written once.
 */
function extendedType(name: string, schema: Schema, components: Record<string, Schema>): string | null {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties) return null;
  const required = new Set<string>(schema.required ?? []);
  let base: { name: string; size: number } | null = null;
  for (const [other, candidate] of Object.entries(components)) {
    const fields = Object.entries((candidate.properties ?? {}) as Record<string, Schema>);
    if (other === name || fields.length === 0 || fields.length >= Object.keys(properties).length || (base && fields.length <= base.size)) continue;
    const same = fields.every(
      ([field, value]) =>
        JSON.stringify(properties[field]) === JSON.stringify(value) && required.has(field) === ((candidate.required ?? []) as string[]).includes(field),
    );
    if (same) base = { name: other, size: fields.length };
  }
  if (!base) return null;
  const inherited = new Set(Object.keys((components[base.name]!.properties ?? {}) as object));
  const own = Object.fromEntries(Object.entries(properties).filter(([field]) => !inherited.has(field)));
  return `${base.name} & ${objectType({ ...schema, properties: own, required: [...required].filter((field) => !inherited.has(field)) }, 0)}`;
}

function typeOf(schema: Schema | boolean, depth: number): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (schema.$ref) return String(schema.$ref).split('/').at(-1)!;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value: unknown) => JSON.stringify(value)).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map((member: Schema) => wrap(typeOf(member, depth))).join(' | ');
  if (Array.isArray(schema.allOf)) return schema.allOf.map((member: Schema) => wrap(typeOf(member, depth))).join(' & ');
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return types.map((type) => typeOf({ ...schema, type }, depth)).join(' | ');
  switch (types[0]) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(schema.items ?? {}, depth)}>`;
    case 'object':
      return objectType(schema, depth);
    default:
      return schema.properties ? objectType(schema, depth) : 'unknown';
  }
}

function objectType(schema: Schema, depth: number): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const required = new Set<string>(schema.required ?? []);
  const extra = schema.additionalProperties;
  if (properties.length === 0)
    return extra === false ? 'Record<string, never>' : `Record<string, ${extra && extra !== true ? typeOf(extra, depth) : 'unknown'}>`;
  const pad = '  '.repeat(depth + 1);
  const fields = properties.map(([name, property]) => `${pad}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, depth + 1)};`);
  if (extra && extra !== false && extra !== true) fields.push(`${pad}[key: string]: ${typeOf(extra, depth + 1)};`);
  return `{\n${fields.join('\n')}\n${'  '.repeat(depth)}}`;
}

const wrap = (type: string) => (type.includes(' | ') || type.includes(' & ') ? `(${type})` : type);
