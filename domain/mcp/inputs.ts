import * as v from 'valibot';
import { ConfigurationKey, DisplayName } from '../model-catalog/provider-input.ts';
import { headerNameProblem } from './header-name.ts';
import {
  MAX_ENDPOINT_URL_LENGTH,
  MAX_PATH_PREFIX_LENGTH,
  MAX_POLICY_RESPONSE_BYTES,
  MAX_POLICY_TIMEOUT_MS,
  MAX_SECRET_LENGTH,
  MAX_TOOLSET_TOOLS,
  MIN_POLICY_RESPONSE_BYTES,
  MIN_POLICY_TIMEOUT_MS,
} from './limits.ts';
import { pathPrefixProblem } from './policy-scope.ts';
import { MCP_CREDENTIAL_KINDS, MCP_TOOL_APPROVALS, MCP_TRANSPORTS } from './types.ts';

/**
 * Request bodies of the MCP routes (spec 2 "MCP servers, credentials, policies, toolsets").
 * Rules that need server settings (https only, private networks) are checked by the services.
 * Messages never echo a value: a secret may be in any field a client mixes up.
 */

const Uuid = (name: string) => v.pipe(v.string(`${name} must be a string`), v.uuid(`${name} must be a UUID`));

const EndpointUrl = v.pipe(
  v.string('endpointUrl must be a string'),
  v.minLength(1, 'endpointUrl must not be empty'),
  v.maxLength(MAX_ENDPOINT_URL_LENGTH, `endpointUrl must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`),
);

export const CreateMcpServerInput = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  endpointUrl: EndpointUrl,
  transport: v.picklist(MCP_TRANSPORTS, 'transport must be "streamable_http" or "legacy_sse"'),
});
export type CreateMcpServerInput = v.InferOutput<typeof CreateMcpServerInput>;

/** `POST .../discover`: no body, `{}`, or `{credentialPolicyVersionId}`. */
export const DiscoverMcpServerInput = v.strictObject({
  credentialPolicyVersionId: v.optional(v.nullable(Uuid('credentialPolicyVersionId')), null),
});
export type DiscoverMcpServerInput = v.InferOutput<typeof DiscoverMcpServerInput>;

/** An MCP credential secret (also what a restore accepts for one). */
export const McpSecret = v.pipe(
  v.string('secret must be a string'),
  v.trim(),
  v.minLength(1, 'secret must not be empty'),
  v.maxLength(MAX_SECRET_LENGTH, `secret must be at most ${MAX_SECRET_LENGTH} characters`),
  v.regex(/^[\x21-\x7e]+$/, 'secret must be printable ASCII without spaces'),
);

/**
 * `static_bearer` is sent as `Authorization: Bearer <secret>` and takes `headerName: null` (or
 * none); `api_key_header` is sent as `<headerName>: <secret>` and needs a safe header name.
 */
export const CreateMcpCredentialInput = v.pipe(
  v.strictObject({
    key: ConfigurationKey,
    displayName: DisplayName,
    kind: v.picklist(MCP_CREDENTIAL_KINDS, 'kind must be "static_bearer" or "api_key_header"'),
    headerName: v.optional(v.nullable(v.string('headerName must be a string or null')), null),
    secret: McpSecret,
  }),
  v.forward(
    v.check(
      (input) => input.kind !== 'static_bearer' || input.headerName === null,
      'headerName must be null for static_bearer (it is sent as Authorization: Bearer)',
    ),
    ['headerName'],
  ),
  v.forward(
    v.check((input) => input.kind !== 'api_key_header' || input.headerName !== null, 'headerName is required for api_key_header'),
    ['headerName'],
  ),
  v.forward(
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed || dataset.value.kind !== 'api_key_header' || dataset.value.headerName === null) return;
      const problem = headerNameProblem(dataset.value.headerName);
      if (problem) addIssue({ message: problem });
    }),
    ['headerName'],
  ),
);
export type CreateMcpCredentialInput = v.InferOutput<typeof CreateMcpCredentialInput>;

export const RotateMcpCredentialInput = v.strictObject({ secret: McpSecret });
export type RotateMcpCredentialInput = v.InferOutput<typeof RotateMcpCredentialInput>;

const integerIn = (name: string, min: number, max: number) =>
  v.pipe(
    v.number(`${name} must be a number`),
    v.integer(`${name} must be an integer`),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

/** A policy version; posting an existing key publishes that policy's next version. */
export const CreateMcpCredentialPolicyInput = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  credentialId: Uuid('credentialId'),
  exactOrigin: v.pipe(
    v.string('exactOrigin must be a string'),
    v.minLength(1, 'exactOrigin must not be empty'),
    v.maxLength(MAX_ENDPOINT_URL_LENGTH, 'exactOrigin is too long'),
  ),
  pathPrefix: v.pipe(
    v.string('pathPrefix must be a string'),
    v.maxLength(MAX_PATH_PREFIX_LENGTH, `pathPrefix must be at most ${MAX_PATH_PREFIX_LENGTH} characters`),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = pathPrefixProblem(dataset.value);
      if (problem) addIssue({ message: problem });
    }),
  ),
  timeoutMs: integerIn('timeoutMs', MIN_POLICY_TIMEOUT_MS, MAX_POLICY_TIMEOUT_MS),
  maximumResponseBytes: integerIn('maximumResponseBytes', MIN_POLICY_RESPONSE_BYTES, MAX_POLICY_RESPONSE_BYTES),
});
export type CreateMcpCredentialPolicyInput = v.InferOutput<typeof CreateMcpCredentialPolicyInput>;

/** `approval` takes the tool-definition values; `true`/`false` are accepted as `always`/`never`. */
const Approval = v.pipe(
  v.union([v.picklist(MCP_TOOL_APPROVALS), v.boolean()], 'approval must be "never", "always", true or false'),
  v.transform((value) => (value === true ? 'always' : value === false ? 'never' : value)),
);

const ToolsetTool = v.strictObject({
  remoteToolName: v.pipe(
    v.string('remoteToolName must be a string'),
    v.minLength(1, 'remoteToolName must not be empty'),
    v.maxLength(200, 'remoteToolName must be at most 200 characters'),
  ),
  approval: v.optional(Approval, 'never'),
});

/** A toolset version; posting an existing key publishes that toolset's next version. */
export const CreateMcpToolsetInput = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  serverVersionId: Uuid('serverVersionId'),
  tools: v.pipe(
    v.array(ToolsetTool, 'tools must be an array'),
    v.minLength(1, 'tools must select at least one tool'),
    v.maxLength(MAX_TOOLSET_TOOLS, `tools may select at most ${MAX_TOOLSET_TOOLS} tools`),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const seen = new Set<string>();
      for (const [index, tool] of dataset.value.entries()) {
        if (seen.has(tool.remoteToolName)) {
          addIssue({
            message: `tools selects "${tool.remoteToolName}" twice`,
            path: [{ type: 'array', origin: 'value', input: dataset.value, key: index, value: tool }],
          });
          return;
        }
        seen.add(tool.remoteToolName);
      }
    }),
  ),
});
export type CreateMcpToolsetInput = v.InferOutput<typeof CreateMcpToolsetInput>;
