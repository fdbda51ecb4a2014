import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { MCP_TOOL_PREFIX, STRING_FORMATS, type ToolDefinition } from '../../../domain/agent-config/index.ts';
import { describeJsonProblem, unstorableJsonPart } from '../../../domain/json-limits.ts';
import { childValuePath, schemaErrorPath } from '../../../domain/tool-calls/value-path.ts';

/**
 * Run-time validation of tool values against a pinned version's published schemas (ARCHITECTURE
 * "tool-value validation"): strict ajv with the dialect's string formats and no coercion, no
 * defaults — a value either matches exactly or is refused with its first failing path.
 */
const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: false, coerceTypes: false, useDefaults: false });
addFormats.default(ajv, [...STRING_FORMATS]);
/**
 * Remote MCP input schemas are the server's, not published through our schema policy: they are
 * checked leniently (unknown keywords and formats ignored, no coercion). One ajv cannot compile
 * stays unchecked here and the server validates its own arguments.
 */
const lenientAjv = new Ajv({ strict: false, allowUnionTypes: true, allErrors: false, coerceTypes: false, useDefaults: false, validateFormats: false });

/**
 * Compiled validators per (agent version, tool, direction). Versions are immutable, so an entry
 * never goes stale; the bound keeps memory flat, and evicted schemas leave ajv's own cache too.
 */
const MAX_CACHED = 500;
const cache = new Map<string, { schema: object; validate: ValidateFunction; compiler: Ajv }>();

function validatorFor(key: string, schema: object, compiler: Ajv = ajv): ValidateFunction {
  const hit = cache.get(key);
  if (hit) {
    // Refresh recency: Map iteration order is insertion order.
    cache.delete(key);
    cache.set(key, hit);
    return hit.validate;
  }
  const validate = compiler.compile(schema);
  cache.set(key, { schema, validate, compiler });
  if (cache.size > MAX_CACHED) {
    const [oldestKey, oldest] = cache.entries().next().value!;
    cache.delete(oldestKey);
    oldest.compiler.removeSchema(oldest.schema);
  }
  return validate;
}

export type ToolValueCheck = { ok: true } | { ok: false; path: string; message: string };

/**
 * Checks `value` against the tool's `inputSchema` (`direction: 'input'`, paths under
 * `arguments`) or `outputSchema` (`'output'`, paths under `safeResult.value`). The message names
 * the rule that failed, never the value; a value that cannot be stored (domain/json-limits.ts)
 * fails whatever the schema. A schema ajv cannot compile (publication should have
 * refused it) fails closed as a mismatch at the root; for a remote MCP tool it is left to the
 * server.
 */
export function validateToolValue(input: { agentVersionId: string; tool: ToolDefinition; direction: 'input' | 'output'; value: unknown }): ToolValueCheck {
  const root = input.direction === 'input' ? 'arguments' : 'safeResult.value';
  const schema = input.direction === 'input' ? input.tool.inputSchema : input.tool.outputSchema;
  // First what no column can store (and what would overflow the stack of ajv or the jsonb
  // encoder): model arguments and platform or MCP results come from third parties unchecked.
  const unstorable = unstorableJsonPart(input.value);
  if (unstorable) {
    const path = unstorable.path.reduce<string>(childValuePath, root);
    return { ok: false, path, message: `${path} ${describeJsonProblem(unstorable)}` };
  }
  const remote = input.tool.name.startsWith(MCP_TOOL_PREFIX);
  let validate: ValidateFunction;
  try {
    validate = validatorFor(`${input.agentVersionId}\u0000${input.tool.name}\u0000${input.direction}`, schema, remote ? lenientAjv : ajv);
  } catch {
    if (remote) return { ok: true };
    return { ok: false, path: root, message: `${root} cannot be checked: the tool's published schema is not supported` };
  }
  if (validate(input.value)) return { ok: true };
  const error = validate.errors?.[0];
  if (!error) return { ok: false, path: root, message: `${root} does not match the tool's schema` };
  const path = schemaErrorPath(root, input.value, error);
  return { ok: false, path, message: `${path} ${error.message ?? 'does not match the schema'}` };
}
