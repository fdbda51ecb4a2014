/** MCP limits (spec 3 "Limits", and our own where it is silent: docs/decisions/mcp-discovery.md, docs/decisions/mcp-credential-policies.md). */

/** A discovery that lists more tools fails with 400 and publishes nothing. */
export const MAX_DISCOVERED_TOOLS = 256;
/** A toolset selects 1-64 tools of its server version. */
export const MAX_TOOLSET_TOOLS = 64;
/** Policy bounds: a call may take 1 s to 5 min, and answer 1 KiB to 16 MiB. */
export const MIN_POLICY_TIMEOUT_MS = 1_000;
export const MAX_POLICY_TIMEOUT_MS = 300_000;
export const MIN_POLICY_RESPONSE_BYTES = 1_024;
export const MAX_POLICY_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Discovery without a policy: its own deadline and response ceiling. */
export const DISCOVERY_TIMEOUT_MS = 30_000;
export const DISCOVERY_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** A credential secret: printable ASCII, safe in a header. */
export const MAX_SECRET_LENGTH = 4_096;
export const MAX_ENDPOINT_URL_LENGTH = 2_048;
export const MAX_PATH_PREFIX_LENGTH = 1_024;
