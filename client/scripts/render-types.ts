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
    '// Generated from the service\'s OpenAPI document by client/scripts/render-types.ts. Do not edit:',
    '// regenerate with `UPDATE_CLIENT_TYPES=1 npx vitest run test/integration/client-types.test.ts`.',
    '',
  ];
  // Named shapes (the answers' `$ref`s) first, so operations read as `PublicRun`, `SessionDetail`...
  for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Schema>)) {
    if (schema.description) lines.push(`/** ${String(schema.description).replace(/\*\//g, '*\\/')} */`);
    lines.push(`export type ${name} = ${typeOf(schema, 0)};`, '');
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
        const type = content['application/json'] ? typeOf(content['application/json'].schema ?? {}, 4) : content['text/event-stream'] || content['application/octet-stream'] ? 'ReadableStream<Uint8Array>' : 'void';
        lines.push(`        ${status}: ${type};`);
      }
      lines.push('      };', '    };');
    }
    lines.push('  };');
  }
  lines.push('};', '');
  return lines.join('\n');
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
  if (properties.length === 0) return extra === false ? 'Record<string, never>' : `Record<string, ${extra && extra !== true ? typeOf(extra, depth) : 'unknown'}>`;
  const pad = '  '.repeat(depth + 1);
  const fields = properties.map(([name, property]) => `${pad}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, depth + 1)};`);
  if (extra && extra !== false && extra !== true) fields.push(`${pad}[key: string]: ${typeOf(extra, depth + 1)};`);
  return `{\n${fields.join('\n')}\n${'  '.repeat(depth)}}`;
}

const wrap = (type: string) => (type.includes(' | ') || type.includes(' & ') ? `(${type})` : type);
