import { canonicalJson } from '../canonical-json.ts';
import type { AgentConfig } from './config-schema.ts';

/**
 * The serialization hashed into an agent version's `contentHash` (services take the lowercase
 * hex SHA-256 of its UTF-8 bytes). Public contract, so it never changes for schema version 1:
 *
 * - input is the output of `parseAgentConfig`: every default applied (tools `schemaVersion`,
 *   empty arrays, the default sandbox, `limits.timeoutMs`, root `properties`, `required` and
 *   `additionalProperties` of every tool and result schema) and UUIDs lowercased;
 * - JSON without whitespace; object keys sorted by UTF-16 code units at every level, tool
 *   schemas included; arrays (tools, operations, Skills, delegates, bindings, capabilities,
 *   `required`, `enum`, `examples`) keep their authored order, because order is meaningful to
 *   the model and to the console;
 * - strings and numbers exactly as `JSON.stringify` writes them (so `1.0` is `1`).
 *
 * Two configs that mean the same thing after defaults hash the same; reordering tools does not.
 */
export function canonicalAgentConfig(config: AgentConfig): string {
  return canonicalJson(config);
}
