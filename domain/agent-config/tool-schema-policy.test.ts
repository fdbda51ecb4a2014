import { describe, expect, it } from 'vitest';
import { expectBadRequest, type Json } from './test-fixtures.ts';
import { normalizeObjectSchema, STRING_FORMATS, TOOL_SCHEMA_LIMITS } from './tool-schema-policy.ts';

const S = 'config.tools[0].inputSchema';

/** A root schema with one property `x` holding `node`. */
const withX = (node: unknown, extra: Record<string, unknown> = {}): Json => ({ type: 'object', properties: { x: node }, ...extra });

/** `levels` schema levels in total: the root object, nested objects `n`, and a string leaf. */
function nested(levels: number): Json {
  let node: Json = { type: 'string' };
  for (let level = 1; level < levels; level += 1) node = { type: 'object', properties: { n: node } };
  return node;
}
const nestedPath = (levels: number) => `${S}${'.properties.n'.repeat(levels - 1)}`;

const manyProperties = (count: number) => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string' }])),
});

/** The root plus `count` array properties of two nodes each (the property and its items). */
const arrayProperties = (count: number, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'array', items: { type: 'string' } }])), ...extra },
});

describe('tool schema dialect accepts', () => {
  const accepted: Array<[string, Json]> = [
    ['a bare object root', { type: 'object' }],
    [
      'every scalar type',
      withX({
        type: 'object',
        properties: { s: { type: 'string' }, n: { type: 'number' }, i: { type: 'integer' }, b: { type: 'boolean' }, z: { type: 'null' } },
      }),
    ],
    [
      'nullable forms in either order',
      withX({
        type: 'object',
        properties: {
          a: { type: ['string', 'null'] },
          b: { type: ['null', 'object'], properties: {} },
          c: { type: ['array', 'null'], items: { type: 'integer' } },
        },
      }),
    ],
    [
      'homogeneous arrays of objects',
      withX({ type: 'array', items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] }, minItems: 1, maxItems: 1 }),
    ],
    [
      'typed enums, untyped mixed enums and nullable enums',
      withX({
        type: 'object',
        properties: { a: { type: 'string', enum: ['x', 'y'] }, b: { enum: ['x', 1, true, null] }, c: { type: ['integer', 'null'], enum: [1, null] } },
      }),
    ],
    ['const with and without type', withX({ type: 'object', properties: { a: { const: 'v1' }, b: { type: 'number', const: 2.5 } } })],
    [
      'title, description and eight examples on every node',
      {
        type: 'object',
        title: 'Root',
        description: 'd',
        examples: Array(8).fill({}),
        properties: { x: { type: 'string', title: 't', description: 'd', examples: ['a', 'b'] }, e: { enum: ['a'], title: 't', examples: ['a'] } },
      },
    ],
    ['string lengths, equal bounds included', withX({ type: 'string', minLength: 2, maxLength: 2 })],
    ...STRING_FORMATS.map((format): [string, Json] => [`format ${format}`, withX({ type: 'string', format })]),
    ['numeric bounds and multipleOf', withX({ type: 'number', minimum: -1.5, maximum: 10, exclusiveMaximum: 11, multipleOf: 0.5 })],
    ['integer exclusive bounds', withX({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 2 })],
    ['closed objects', withX({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, { additionalProperties: false })],
    ['typed maps', withX({ type: 'object', additionalProperties: { type: 'object', properties: { n: { type: 'integer' } } } })],
    ['required names that are declared', withX({ type: 'string' }, { required: ['x'] })],
    ['property names with dots and dashes', withX({ type: 'string' }, { properties: { 'a.b': { type: 'string' }, 'c-d': { type: 'string' } } })],
    [`${TOOL_SCHEMA_LIMITS.maxDepth} levels`, nested(TOOL_SCHEMA_LIMITS.maxDepth)],
    [`${TOOL_SCHEMA_LIMITS.maxProperties} properties`, manyProperties(TOOL_SCHEMA_LIMITS.maxProperties)],
    [`${TOOL_SCHEMA_LIMITS.maxNodes} nodes`, arrayProperties(255, { last: { type: 'string' } })],
    ['a schema just under 64 KiB', withX({ type: 'string', description: 'd'.repeat(TOOL_SCHEMA_LIMITS.maxBytes - 200) })],
    ['examples holding arbitrary JSON', withX({ type: 'object', examples: [{ nested: [1, { deep: null }] }] })],
    ['counters that merely mention tokens', withX({ type: 'integer' }, { properties: { maxTokens: { type: 'integer' }, tokenCount: { type: 'integer' } } })],
  ];

  it.each(accepted)('%s', (_name, schema) => {
    expect(() => normalizeObjectSchema(schema, S)).not.toThrow();
  });

  it('applies root defaults and keeps authored values', () => {
    expect(normalizeObjectSchema({ type: 'object' }, S)).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: true });
    const closed = normalizeObjectSchema(withX({ type: 'object' }, { required: ['x'], additionalProperties: false }), S);
    expect(closed).toEqual({ type: 'object', properties: { x: { type: 'object' } }, required: ['x'], additionalProperties: false });
  });

  it('copies examples as data, even a "__proto__" key', () => {
    const schema = normalizeObjectSchema(withX({ type: 'object', examples: [JSON.parse('{"__proto__":{"polluted":true}}')] }), S);
    const example = (schema.properties.x!.examples as object[])[0]!;
    expect(Object.keys(example)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(example)).toBe(Object.prototype);
  });

  it('does not add defaults below the root', () => {
    expect(normalizeObjectSchema(withX({ type: 'object' }), S).properties.x).toEqual({ type: 'object' });
  });
});

describe('tool schema dialect rejects', () => {
  const rejected: Array<[string, Json, string]> = [
    // Root
    ['a root without type', { properties: {} }, `${S}.type`],
    ['a nullable root', { type: ['object', 'null'] }, `${S}.type`],
    ['a non-object root', { type: 'string' }, `${S}.type`],
    // Refused keywords, at their exact path
    ['pattern', withX({ type: 'string', pattern: '^[a-z]+$' }), `${S}.properties.x.pattern`],
    ['default', withX({ type: 'string', default: 'a' }), `${S}.properties.x.default`],
    ['oneOf', withX({ oneOf: [{ type: 'string' }] }), `${S}.properties.x.oneOf`],
    ['anyOf', withX({ anyOf: [{ type: 'string' }, { type: 'null' }] }), `${S}.properties.x.anyOf`],
    ['allOf', withX({ allOf: [] }), `${S}.properties.x.allOf`],
    ['not', withX({ type: 'string', not: { const: 'a' } }), `${S}.properties.x.not`],
    ['discriminator', withX({ type: 'object', discriminator: { propertyName: 'kind' } }), `${S}.properties.x.discriminator`],
    ['$defs at the root', { type: 'object', $defs: { a: { type: 'string' } } }, `${S}.$defs`],
    ['definitions at the root', { type: 'object', definitions: {} }, `${S}.definitions`],
    ['$ref', withX({ $ref: '#/$defs/a' }), `${S}.properties.x.$ref`],
    ['$id', { type: 'object', $id: 'https://example.com/s' }, `${S}.$id`],
    ['$schema', { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' }, `${S}.$schema`],
    ['prefixItems', withX({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'string' } }), `${S}.properties.x.prefixItems`],
    ['a tuple items array', withX({ type: 'array', items: [{ type: 'string' }] }), `${S}.properties.x.items`],
    ['patternProperties', withX({ type: 'object', patternProperties: {} }), `${S}.properties.x.patternProperties`],
    ['an unknown keyword', withX({ type: 'string', nullable: true }), `${S}.properties.x.nullable`],
    ['uniqueItems', withX({ type: 'array', items: { type: 'string' }, uniqueItems: true }), `${S}.properties.x.uniqueItems`],
    ['a coercion keyword', withX({ type: 'string', contentEncoding: 'base64' }), `${S}.properties.x.contentEncoding`],
    // Types
    ['a node without type', withX({ description: 'anything' }), `${S}.properties.x.type`],
    ['an unknown type', withX({ type: 'date' }), `${S}.properties.x.type`],
    ['a union of two non-null types', withX({ type: ['string', 'number'] }), `${S}.properties.x.type`],
    ['a one-element type array', withX({ type: ['string'] }), `${S}.properties.x.type`],
    ['a null-only type pair', withX({ type: ['null', 'null'] }), `${S}.properties.x.type`],
    ['an array without items', withX({ type: 'array' }), `${S}.properties.x.items`],
    ['items that are not a schema', withX({ type: 'array', items: true }), `${S}.properties.x.items`],
    // Keywords of another type
    ['minLength on a number', withX({ type: 'number', minLength: 1 }), `${S}.properties.x.minLength`],
    ['minimum on a string', withX({ type: 'string', minimum: 1 }), `${S}.properties.x.minimum`],
    ['format on an integer', withX({ type: 'integer', format: 'uuid' }), `${S}.properties.x.format`],
    ['properties on an array', withX({ type: 'array', items: { type: 'string' }, properties: {} }), `${S}.properties.x.properties`],
    ['items on a boolean', withX({ type: 'boolean', items: { type: 'string' } }), `${S}.properties.x.items`],
    // Values of supported keywords
    ['an unsupported format', withX({ type: 'string', format: 'hostname' }), `${S}.properties.x.format`],
    ['a negative minLength', withX({ type: 'string', minLength: -1 }), `${S}.properties.x.minLength`],
    ['a fractional maxItems', withX({ type: 'array', items: { type: 'string' }, maxItems: 1.5 }), `${S}.properties.x.maxItems`],
    ['maxLength below minLength', withX({ type: 'string', minLength: 3, maxLength: 2 }), `${S}.properties.x.maxLength`],
    ['maxItems below minItems', withX({ type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 1 }), `${S}.properties.x.maxItems`],
    ['a non-numeric minimum', withX({ type: 'number', minimum: '1' }), `${S}.properties.x.minimum`],
    ['a draft-4 boolean exclusiveMinimum', withX({ type: 'number', exclusiveMinimum: true }), `${S}.properties.x.exclusiveMinimum`],
    ['maximum below minimum', withX({ type: 'number', minimum: 5, maximum: 4 }), `${S}.properties.x.maximum`],
    ['exclusiveMaximum equal to minimum', withX({ type: 'integer', minimum: 5, exclusiveMaximum: 5 }), `${S}.properties.x.exclusiveMaximum`],
    ['maximum equal to exclusiveMinimum', withX({ type: 'number', exclusiveMinimum: 5, maximum: 5 }), `${S}.properties.x.maximum`],
    ['multipleOf 0', withX({ type: 'number', multipleOf: 0 }), `${S}.properties.x.multipleOf`],
    // enum and const
    ['an empty enum', withX({ enum: [] }), `${S}.properties.x.enum`],
    ['an enum that is not an array', withX({ enum: 'a' }), `${S}.properties.x.enum`],
    ['a non-primitive enum value', withX({ enum: ['a', { b: 1 }] }), `${S}.properties.x.enum[1]`],
    ['a repeated enum value', withX({ enum: ['a', 'b', 'a'] }), `${S}.properties.x.enum[2]`],
    ['an enum value of another type', withX({ type: 'integer', enum: [1, 1.5] }), `${S}.properties.x.enum[1]`],
    ['null in an enum that is not nullable', withX({ type: 'string', enum: ['a', null] }), `${S}.properties.x.enum[1]`],
    ['an enum of object type', withX({ type: 'object', enum: ['a'] }), `${S}.properties.x.type`],
    ['a constraint beside enum', withX({ type: 'string', enum: ['a'], minLength: 1 }), `${S}.properties.x.minLength`],
    ['enum and const together', withX({ enum: ['a'], const: 'a' }), `${S}.properties.x.const`],
    ['an object const', withX({ const: { a: 1 } }), `${S}.properties.x.const`],
    ['a const of another type', withX({ type: 'boolean', const: 'true' }), `${S}.properties.x.const`],
    // Annotations
    ['a non-string title', withX({ type: 'string', title: 1 }), `${S}.properties.x.title`],
    ['a non-string description', { type: 'object', description: ['a'] }, `${S}.description`],
    ['examples that are not an array', withX({ type: 'string', examples: 'a' }), `${S}.properties.x.examples`],
    ['an example JSON cannot carry', withX({ type: 'number', examples: [1, Number.NaN] }), `${S}.properties.x.examples[1]`],
    ['nine examples', withX({ type: 'string', examples: Array(9).fill('a') }), `${S}.properties.x.examples`],
    // Objects
    ['properties that are not an object', withX({ type: 'object', properties: [] }), `${S}.properties.x.properties`],
    ['a property schema that is not an object', withX('string'), `${S}.properties.x`],
    ['required that is not an array', withX({ type: 'string' }, { required: 'x' }), `${S}.required`],
    ['a repeated required name', withX({ type: 'string' }, { required: ['x', 'x'] }), `${S}.required[1]`],
    ['a required name that is not declared', withX({ type: 'string' }, { required: ['x', 'y'] }), `${S}.required[1]`],
    ['a required name in a nested object without properties', withX({ type: 'object', required: ['a'] }), `${S}.properties.x.required[0]`],
    ['a non-boolean, non-schema additionalProperties', withX({ type: 'object', additionalProperties: 'no' }), `${S}.properties.x.additionalProperties`],
    [
      'a refused keyword inside a typed map',
      withX({ type: 'object', additionalProperties: { type: 'string', pattern: 'a' } }),
      `${S}.properties.x.additionalProperties.pattern`,
    ],
    // Property names
    ['the property name __proto__', JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'), `${S}.properties.__proto__`],
    ['the property name constructor', withX({ type: 'string' }, { properties: { constructor: { type: 'string' } } }), `${S}.properties.constructor`],
    ['the property name prototype', withX({ type: 'object', properties: { prototype: { type: 'string' } } }), `${S}.properties.x.properties.prototype`],
    ['an empty property name', withX({ type: 'string' }, { properties: { '': { type: 'string' } } }), `${S}.properties[""]`],
    ['a property name with a space', withX({ type: 'string' }, { properties: { 'first name': { type: 'string' } } }), `${S}.properties["first name"]`],
    ['a 65-character property name', withX({ type: 'string' }, { properties: { ['p'.repeat(65)]: { type: 'string' } } }), `${S}.properties.${'p'.repeat(65)}`],
    ['a sensitive property name', withX({ type: 'string' }, { properties: { apiKey: { type: 'string' } } }), `${S}.properties.apiKey`],
    [
      'a sensitive nested property name',
      withX({ type: 'object', properties: { github_token: { type: 'string' } } }),
      `${S}.properties.x.properties.github_token`,
    ],
    [
      'a sensitive property name inside array items',
      withX({ type: 'array', items: { type: 'object', properties: { Password: { type: 'string' } } } }),
      `${S}.properties.x.items.properties.Password`,
    ],
    // Limits
    [`${TOOL_SCHEMA_LIMITS.maxDepth + 1} levels`, nested(TOOL_SCHEMA_LIMITS.maxDepth + 1), nestedPath(TOOL_SCHEMA_LIMITS.maxDepth + 1)],
    [`${TOOL_SCHEMA_LIMITS.maxProperties + 1} properties`, manyProperties(TOOL_SCHEMA_LIMITS.maxProperties + 1), `${S}.properties.p256`],
    [`${TOOL_SCHEMA_LIMITS.maxNodes + 1} nodes`, arrayProperties(256), `${S}.properties.p255.items`],
    ['more than 64 KiB of JSON', withX({ type: 'string', description: 'd'.repeat(TOOL_SCHEMA_LIMITS.maxBytes) }), S],
    ['more than 64 KiB of UTF-8 in fewer characters', withX({ type: 'string', description: 'é'.repeat(TOOL_SCHEMA_LIMITS.maxBytes / 2) }), S],
    ['a schema that is not an object', [], S],
  ];

  it.each(rejected)('%s', (_name, schema, path) => {
    expectBadRequest(() => normalizeObjectSchema(schema, S), path);
  });

  it('explains refused keywords', () => {
    expectBadRequest(() => normalizeObjectSchema(withX({ type: 'string', pattern: 'a' }), S), `${S}.properties.x.pattern`, /regular expressions/);
    expectBadRequest(
      () => normalizeObjectSchema(withX({ type: 'string' }, { properties: { secret: { type: 'string' } } }), S),
      `${S}.properties.secret`,
      /credential/,
    );
  });
});
