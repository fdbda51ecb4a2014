import { canonicalJson } from '../canonical-json.ts';
import { copyJson, isPlainObject } from './json.ts';
import { childPath, grouped, invalid } from './paths.ts';
import { sensitiveWordIn } from './sensitive-names.ts';

/**
 * The JSON Schema dialect of tool schema version 1 (spec 1 "Schema rules"): the subset every
 * supported model provider accepts, checked fail-closed so a provider never rejects a published
 * schema at run time. Tool `inputSchema`/`outputSchema` and Harness Operation `resultSchema`
 * all use it.
 */

export const TOOL_SCHEMA_LIMITS = {
  /** UTF-8 bytes of the canonical JSON of the schema as stored (root defaults applied). */
  maxBytes: 65_536,
  /** The root is level 1; each property, `items` or `additionalProperties` schema adds one. */
  maxDepth: 12,
  /** Every schema object counts, the root included. */
  maxNodes: 512,
  /** Property names summed over every `properties` object in the schema. */
  maxProperties: 256,
  maxExamples: 8,
} as const;

export const SCHEMA_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export const STRING_FORMATS = ['date', 'date-time', 'email', 'time', 'uri', 'uuid'] as const;

/** Keys that would reach `Object.prototype` in naive consumers. */
export const RESERVED_PROPERTY_NAMES: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/** The property-key rule of the strictest supported provider (letters, digits, `_`, `.`, `-`). */
export const PROPERTY_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** One schema object. Only keywords of the dialect remain after normalization. */
export type SchemaNode = { [keyword: string]: unknown };

/** A normalized top-level schema: root defaults are always present. */
export type ObjectSchema = SchemaNode & {
  type: 'object';
  properties: Record<string, SchemaNode>;
  required: string[];
  additionalProperties: boolean | SchemaNode;
};

type Family = 'string' | 'number' | 'array' | 'object';

const FAMILY_KEYWORDS: Record<Family, readonly string[]> = {
  string: ['minLength', 'maxLength', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'additionalProperties'],
};

const ANNOTATIONS: readonly string[] = ['title', 'description', 'examples'];

const KEYWORDS = new Set<string>(['type', 'enum', 'const', ...ANNOTATIONS, ...Object.values(FAMILY_KEYWORDS).flat()]);

/** Why well-known JSON Schema keywords are refused; anything else is simply "not supported". */
const UNSUPPORTED = new Map<string, string>([
  ['pattern', 'regular expressions are not portable across model providers'],
  ['patternProperties', 'regular expressions are not portable across model providers'],
  ['default', 'schemas carry no defaults; tools receive exactly what the model sent'],
  ['oneOf', 'composition keywords are not supported'],
  ['anyOf', 'composition keywords are not supported; use type [T, "null"] for nullable values'],
  ['allOf', 'composition keywords are not supported'],
  ['not', 'composition keywords are not supported'],
  ['if', 'conditional schemas are not supported'],
  ['discriminator', 'discriminated unions are not supported'],
  ['$ref', 'references are not supported; inline the schema'],
  ['$defs', 'definitions are not supported; inline the schema'],
  ['definitions', 'definitions are not supported; inline the schema'],
  ['$id', 'schema identifiers are not supported'],
  ['$schema', 'the dialect is fixed by the tool schemaVersion; remove $schema'],
  ['prefixItems', 'tuple schemas are not supported'],
  ['additionalItems', 'tuple schemas are not supported'],
]);

type Budget = { nodes: number; properties: number };

/**
 * Checks one top-level schema against the version 1 dialect and returns a fresh copy with the
 * root defaults applied (`properties: {}`, `required: []`, `additionalProperties: true`). Throws
 * a `ValidationError` whose `details.path` points at the offending keyword, property or value,
 * e.g. `config.tools[2].inputSchema.properties.user.pattern`.
 */
export function normalizeObjectSchema(value: unknown, path: string): ObjectSchema {
  if (!isPlainObject(value)) throw invalid(path, 'must be a JSON Schema object');
  if (value.type !== 'object') throw invalid(childPath(path, 'type'), 'must be "object" at the root of a schema');
  const copy = readNode(value, path, 1, { nodes: 0, properties: 0 });
  const schema = {
    ...copy,
    properties: copy.properties ?? {},
    required: copy.required ?? [],
    additionalProperties: copy.additionalProperties ?? true,
  } as ObjectSchema;
  const bytes = new TextEncoder().encode(canonicalJson(schema)).length;
  if (bytes > TOOL_SCHEMA_LIMITS.maxBytes) {
    throw invalid(path, `is ${grouped(bytes)} bytes of JSON; at most ${grouped(TOOL_SCHEMA_LIMITS.maxBytes)} are allowed`);
  }
  return schema;
}

function readNode(node: unknown, path: string, depth: number, budget: Budget): SchemaNode {
  if (!isPlainObject(node)) throw invalid(path, 'must be a schema object');
  if (depth > TOOL_SCHEMA_LIMITS.maxDepth) throw invalid(path, `is nested deeper than ${TOOL_SCHEMA_LIMITS.maxDepth} levels`);
  budget.nodes += 1;
  if (budget.nodes > TOOL_SCHEMA_LIMITS.maxNodes) throw invalid(path, `exceeds ${TOOL_SCHEMA_LIMITS.maxNodes} schema nodes`);
  for (const keyword of Object.keys(node)) {
    if (!KEYWORDS.has(keyword)) {
      const why = UNSUPPORTED.get(keyword);
      throw invalid(childPath(path, keyword), why ? `is not supported: ${why}` : 'is not a supported keyword of tool schema version 1');
    }
  }
  return 'enum' in node || 'const' in node ? readValueSetNode(node, path) : readTypedNode(node, path, depth, budget);
}

/** A node constrained by `type` and the keywords of that type's family. */
function readTypedNode(node: Record<string, unknown>, path: string, depth: number, budget: Budget): SchemaNode {
  if (!('type' in node)) throw invalid(childPath(path, 'type'), 'is required (or use enum or const)');
  const type = readType(node.type, childPath(path, 'type'));
  const family = familyOf(type.base);
  const out: SchemaNode = {};
  for (const [keyword, value] of Object.entries(node)) {
    const at = childPath(path, keyword);
    if (keyword === 'type') out.type = copyType(value);
    else if (ANNOTATIONS.includes(keyword)) out[keyword] = readAnnotation(keyword, value, at);
    else if (family === null || !FAMILY_KEYWORDS[family].includes(keyword)) throw invalid(at, `does not apply to type "${type.base}"`);
    else if (keyword === 'format') out.format = readFormat(value, at);
    else if (keyword === 'multipleOf') out.multipleOf = readNumber(value, at, 'must be a number greater than 0', (n) => n > 0);
    else if (FAMILY_KEYWORDS.number.includes(keyword)) out[keyword] = readNumber(value, at, 'must be a number');
    else if (keyword === 'items') out.items = readItems(value, at, depth, budget);
    else if (keyword === 'properties') out.properties = readProperties(value, at, depth, budget);
    else if (keyword === 'additionalProperties') out.additionalProperties = typeof value === 'boolean' ? value : readNode(value, at, depth + 1, budget);
    else if (keyword === 'required') out.required = readRequired(value, at);
    // minLength, maxLength, minItems, maxItems
    else out[keyword] = readNumber(value, at, 'must be an integer of at least 0', (n) => Number.isInteger(n) && n >= 0);
  }
  if (type.base === 'array' && !('items' in node)) throw invalid(childPath(path, 'items'), 'is required for array schemas');
  if (type.base === 'object') checkRequiredAreDeclared(out, path);
  checkBounds(out, path);
  return out;
}

/** `enum` and `const` nodes: primitive values, optionally a primitive type, and annotations. */
function readValueSetNode(node: Record<string, unknown>, path: string): SchemaNode {
  if ('enum' in node && 'const' in node) throw invalid(childPath(path, 'const'), 'cannot be combined with enum');
  const out: SchemaNode = {};
  let type: TypeInfo | null = null;
  for (const [keyword, value] of Object.entries(node)) {
    const at = childPath(path, keyword);
    if (keyword === 'type') {
      type = readType(value, at);
      if (type.base === 'array' || type.base === 'object') throw invalid(at, 'must be a primitive type for enum and const');
      out.type = copyType(value);
    } else if (ANNOTATIONS.includes(keyword)) out[keyword] = readAnnotation(keyword, value, at);
    else if (keyword !== 'enum' && keyword !== 'const')
      throw invalid(at, 'is not allowed beside enum or const (only type, title, description and examples are)');
  }
  if ('const' in node) {
    out.const = readPrimitive(node.const, childPath(path, 'const'), type);
    return out;
  }
  const at = childPath(path, 'enum');
  if (!Array.isArray(node.enum) || node.enum.length === 0) throw invalid(at, 'must be a non-empty array');
  const seen = new Set<string>();
  out.enum = node.enum.map((value, index) => {
    const primitive = readPrimitive(value, childPath(at, index), type);
    const key = canonicalJson(primitive);
    if (seen.has(key)) throw invalid(childPath(at, index), 'repeats an earlier value');
    seen.add(key);
    return primitive;
  });
  return out;
}

type TypeInfo = { base: SchemaType; nullable: boolean };

/** `"T"`, or the nullable form `["T", "null"]` (either order) with exactly one non-null type. */
function readType(value: unknown, path: string): TypeInfo {
  if (isSchemaType(value)) return { base: value, nullable: value === 'null' };
  if (Array.isArray(value) && value.length === 2 && value.every(isSchemaType)) {
    const [first, second] = value as [SchemaType, SchemaType];
    if (first === 'null' && second !== 'null') return { base: second, nullable: true };
    if (second === 'null' && first !== 'null') return { base: first, nullable: true };
  }
  throw invalid(path, `must be one of ${SCHEMA_TYPES.join(', ')}, or a pair of one of them and "null"`);
}

function copyType(value: unknown): unknown {
  return Array.isArray(value) ? [...value] : value;
}

function familyOf(type: SchemaType): Family | null {
  if (type === 'integer') return 'number';
  if (type === 'string' || type === 'number' || type === 'array' || type === 'object') return type;
  return null;
}

function readAnnotation(keyword: string, value: unknown, path: string): unknown {
  if (keyword !== 'examples') {
    if (typeof value !== 'string') throw invalid(path, 'must be a string');
    return value;
  }
  if (!Array.isArray(value)) throw invalid(path, 'must be an array');
  if (value.length > TOOL_SCHEMA_LIMITS.maxExamples) throw invalid(path, `must hold at most ${TOOL_SCHEMA_LIMITS.maxExamples} examples`);
  return value.map((example, index) => copyJson(example, childPath(path, index)));
}

function readFormat(value: unknown, path: string): string {
  if (typeof value !== 'string' || !(STRING_FORMATS as readonly string[]).includes(value)) {
    throw invalid(path, `must be one of ${STRING_FORMATS.join(', ')}`);
  }
  return value;
}

function readNumber(value: unknown, path: string, problem: string, accept: (n: number) => boolean = () => true): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || !accept(value)) throw invalid(path, problem);
  return value;
}

function readItems(value: unknown, path: string, depth: number, budget: Budget): SchemaNode {
  if (Array.isArray(value)) throw invalid(path, 'must be a single schema: tuple schemas are not supported');
  return readNode(value, path, depth + 1, budget);
}

function readProperties(value: unknown, path: string, depth: number, budget: Budget): Record<string, SchemaNode> {
  if (!isPlainObject(value)) throw invalid(path, 'must be an object mapping property names to schemas');
  const out: Record<string, SchemaNode> = {};
  for (const [name, schema] of Object.entries(value)) {
    const at = childPath(path, name);
    checkPropertyName(name, at);
    budget.properties += 1;
    if (budget.properties > TOOL_SCHEMA_LIMITS.maxProperties) throw invalid(at, `exceeds ${TOOL_SCHEMA_LIMITS.maxProperties} properties in one schema`);
    out[name] = readNode(schema, at, depth + 1, budget);
  }
  return out;
}

function checkPropertyName(name: string, path: string): void {
  if (RESERVED_PROPERTY_NAMES.includes(name)) throw invalid(path, `uses the prohibited property name "${name}"`);
  if (!PROPERTY_NAME_PATTERN.test(name)) throw invalid(path, 'must be a property name of 1-64 letters, digits, "_", "." or "-"');
  const word = sensitiveWordIn(name);
  if (word !== null) {
    throw invalid(path, `looks like a credential ("${word}"): tool schemas are sent to the model provider, so sensitive property names are refused`);
  }
}

function readRequired(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw invalid(path, 'must be an array of property names');
  const seen = new Set<string>();
  return value.map((name, index) => {
    const at = childPath(path, index);
    if (typeof name !== 'string') throw invalid(at, 'must be a property name');
    if (seen.has(name)) throw invalid(at, `repeats "${name}"`);
    seen.add(name);
    return name;
  });
}

function checkRequiredAreDeclared(node: SchemaNode, path: string): void {
  const required = (node.required ?? []) as string[];
  const properties = (node.properties ?? {}) as Record<string, SchemaNode>;
  required.forEach((name, index) => {
    if (!Object.hasOwn(properties, name)) throw invalid(childPath(childPath(path, 'required'), index), `names "${name}", which is not in properties`);
  });
}

/** Refuses bounds that no value can satisfy; the upper keyword carries the path. */
function checkBounds(node: SchemaNode, path: string): void {
  const pairs: Array<[lower: string, upper: string, strict: boolean]> = [
    ['minLength', 'maxLength', false],
    ['minItems', 'maxItems', false],
    ['minimum', 'maximum', false],
    ['minimum', 'exclusiveMaximum', true],
    ['exclusiveMinimum', 'maximum', true],
    ['exclusiveMinimum', 'exclusiveMaximum', true],
  ];
  for (const [lowerKey, upperKey, strict] of pairs) {
    const lower = node[lowerKey];
    const upper = node[upperKey];
    if (typeof lower !== 'number' || typeof upper !== 'number') continue;
    if (strict ? upper <= lower : upper < lower) {
      throw invalid(childPath(path, upperKey), `is ${upper}, which leaves no valid value with ${lowerKey} ${lower}`);
    }
  }
}

function readPrimitive(value: unknown, path: string, type: TypeInfo | null): string | number | boolean | null {
  const primitive = value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
  if (!primitive) throw invalid(path, 'must be a string, number, boolean or null');
  if (type !== null && !matchesType(value, type)) throw invalid(path, `does not match type "${type.base}"${type.nullable ? ' or null' : ''}`);
  return value;
}

function matchesType(value: string | number | boolean | null, type: TypeInfo): boolean {
  if (value === null) return type.nullable;
  if (type.base === 'integer') return typeof value === 'number' && Number.isInteger(value);
  return typeof value === type.base;
}

function isSchemaType(value: unknown): value is SchemaType {
  return typeof value === 'string' && (SCHEMA_TYPES as readonly string[]).includes(value);
}
