// Generated from the service's OpenAPI document by client/scripts/render-types.ts. Do not edit:
// regenerate with `UPDATE_CLIENT_TYPES=1 npx vitest run test/integration/client-types.test.ts`.

export type ErrorEnvelope = {
  error: {
    code: "bad_request" | "unauthenticated" | "forbidden" | "not_found" | "conflict" | "idempotency_conflict" | "rate_limited" | "service_unavailable" | "internal_error";
    message: string;
    requestId: string;
    details?: Record<string, unknown>;
  };
};

export type Paths = {
  "/v1/auth/callback": {
    /** Hosted sign-in callback (a 400 in development mode) */
    get: {
      responses: {
      };
    };
  };
  "/v1/auth/development/login": {
    /** Development mode: a cookie session for the development owner (needs the allowed Origin) */
    post: {
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/auth/logout": {
    /** End the browser session and clear its cookies */
    post: {
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/auth/provider": {
    /** The configured sign-in provider: `{mode, loginPath, logoutSupported}` */
    get: {
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/auth/switch-project": {
    /** Make another project of the organization the active one of this browser session */
    post: {
      body: {
        projectId: string;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/context": {
    /** The active organization, project and principal */
    get: {
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/openapi.json": {
    /** This API as an OpenAPI 3.1 document */
    get: {
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/organizations": {
    /** List the principal's organization */
    get: {
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/organizations/{organizationId}": {
    /** Organization identity and creation time */
    get: {
      path: { organizationId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/organizations/{organizationId}/configuration-backup": {
    /** Download the organization's configuration backup (no credentials) */
    get: {
      path: { organizationId: string };
      responses: {
        200: ReadableStream<Uint8Array>;
      };
    };
  };
  "/v1/organizations/{organizationId}/configuration-restore": {
    /** Restore a backup into new or empty projects */
    post: {
      path: { organizationId: string };
      header: { "Idempotency-Key": string };
      body: {
        backup: unknown;
        credentials?: unknown;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/organizations/{organizationId}/configuration-restore/preview": {
    /** Preview a restore; changes nothing */
    post: {
      path: { organizationId: string };
      body: {
        backup: unknown;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects": {
    /** List the projects of the organization */
    get: {
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create a project */
    post: {
      header: { "Idempotency-Key": string };
      body: {
        slug: string;
        name: string;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}": {
    /** Read project and organization metadata */
    get: {
      path: { projectId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Hard-delete a project and every row it owns */
    delete: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/agents": {
    /** List agent definitions */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: {
          data: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            key: string;
            name: string;
            description: string;
            latestVersionId: string;
            version: number;
            model: string;
            status: "published";
            createdAt: string;
            updatedAt: string;
            sandbox: unknown;
          }>;
          pageInfo: {
            nextCursor: string | null;
          };
        };
      };
    };
    /** Create an agent and its version 1 */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        name: string;
        key?: string;
        description?: string | null;
        initialConfig?: unknown;
        config?: unknown;
      };
      responses: {
        201: {
          organizationId: string;
          projectId: string;
          id: string;
          key: string;
          name: string;
          description: string;
          latestVersionId: string;
          version: number;
          model: string;
          status: "published";
          createdAt: string;
          updatedAt: string;
          sandbox: unknown;
          versions: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            agentDefinitionId: string;
            version: number;
            config: Record<string, unknown>;
            contentHash: string;
            createdByPrincipalId: string | null;
            createdAt: string;
          }>;
        };
      };
    };
  };
  "/v1/projects/{projectId}/agents/{agentId}": {
    /** An agent definition and all its versions */
    get: {
      path: { projectId: string; agentId: string };
      responses: {
        200: {
          organizationId: string;
          projectId: string;
          id: string;
          key: string;
          name: string;
          description: string;
          latestVersionId: string;
          version: number;
          model: string;
          status: "published";
          createdAt: string;
          updatedAt: string;
          sandbox: unknown;
          versions: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            agentDefinitionId: string;
            version: number;
            config: Record<string, unknown>;
            contentHash: string;
            createdByPrincipalId: string | null;
            createdAt: string;
          }>;
        };
      };
    };
    /** Archive an agent */
    delete: {
      path: { projectId: string; agentId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: {
          id: string;
          deleted: true;
        };
      };
    };
  };
  "/v1/projects/{projectId}/agents/{agentId}/versions": {
    /** List an agent's versions */
    get: {
      path: { projectId: string; agentId: string };
      responses: {
        200: {
          data: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            agentDefinitionId: string;
            version: number;
            config: Record<string, unknown>;
            contentHash: string;
            createdByPrincipalId: string | null;
            createdAt: string;
          }>;
        };
      };
    };
    /** Publish the next version (the complete config) */
    post: {
      path: { projectId: string; agentId: string };
      header: { "Idempotency-Key": string };
      body: {
        config: unknown;
      };
      responses: {
        201: {
          organizationId: string;
          projectId: string;
          id: string;
          agentDefinitionId: string;
          version: number;
          config: Record<string, unknown>;
          contentHash: string;
          createdByPrincipalId: string | null;
          createdAt: string;
        };
      };
    };
  };
  "/v1/projects/{projectId}/api-keys": {
    /** List the organization's API keys (no secrets) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create an API key; its secret is shown once */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        name: string;
        scopes: Array<string>;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/api-keys/{apiKeyId}": {
    /** Revoke an API key */
    delete: {
      path: { projectId: string; apiKeyId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/approvals": {
    /** List the approvals of a run */
    get: {
      path: { projectId: string };
      query: { runId: string; limit?: string; cursor?: string };
      responses: {
        200: {
          data: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            runId: string;
            sessionId: string;
            toolCallId: string;
            toolName: string;
            status: "pending" | "approved" | "denied" | "expired";
            expiresAt: string;
            note: string | null;
            decidedByPrincipalId: string | null;
            decidedAt: string | null;
            createdAt: string;
          }>;
          pageInfo: {
            nextCursor: string | null;
          };
        };
      };
    };
  };
  "/v1/projects/{projectId}/approvals/{approvalId}/decision": {
    /** Approve or deny */
    post: {
      path: { projectId: string; approvalId: string };
      header: { "Idempotency-Key": string };
      body: {
        status: "approved" | "denied";
        note?: string;
      };
      responses: {
        200: {
          organizationId: string;
          projectId: string;
          id: string;
          runId: string;
          sessionId: string;
          toolCallId: string;
          toolName: string;
          status: "pending" | "approved" | "denied" | "expired";
          expiresAt: string;
          note: string | null;
          decidedByPrincipalId: string | null;
          decidedAt: string | null;
          createdAt: string;
        };
      };
    };
  };
  "/v1/projects/{projectId}/event-webhooks": {
    /** List event webhooks with delivery status */
    get: {
      path: { projectId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create an event webhook */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        displayName: string;
        endpointUrl: string;
        signingSecret: string;
        eventKinds?: Array<string> | null;
        includeMessageContent?: boolean;
        deliverFrom?: "now" | "beginning";
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/event-webhooks/{webhookId}": {
    /** A webhook with its delivery status and last error */
    get: {
      path: { projectId: string; webhookId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Change a webhook */
    patch: {
      path: { projectId: string; webhookId: string };
      header: { "Idempotency-Key": string };
      body: {
        displayName?: string;
        endpointUrl?: string;
        eventKinds?: Array<string> | null;
        includeMessageContent?: boolean;
        enabled?: boolean;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Delete a webhook */
    delete: {
      path: { projectId: string; webhookId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/event-webhooks/{webhookId}/credential": {
    /** Rotate the signing secret */
    put: {
      path: { projectId: string; webhookId: string };
      header: { "Idempotency-Key": string };
      body: {
        signingSecret: string;
        previousCredentialTtlSeconds?: number;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/events": {
    /** The project's product events as server-sent events; resumes after `Last-Event-ID` */
    get: {
      path: { projectId: string };
      query: { once?: "true" | "false"; limit?: string; cursor?: string; from?: "start" | "now" };
      header: { "Last-Event-ID"?: string };
      responses: {
        200: ReadableStream<Uint8Array>;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-credential-policies": {
    /** List credential policy versions */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Publish a credential policy version */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        credentialId: string;
        exactOrigin: string;
        pathPrefix: string;
        timeoutMs: number;
        maximumResponseBytes: number;
      };
      responses: {
        200: Record<string, unknown>;
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-credentials": {
    /** List MCP credentials (redacted metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create an MCP credential (the secret is write-only) */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        kind: "static_bearer" | "api_key_header";
        headerName?: string | null;
        secret: string;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-credentials/{credentialId}": {
    /** Revoke the active credential */
    delete: {
      path: { projectId: string; credentialId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-credentials/{credentialId}/rotate": {
    /** Rotate a credential's secret */
    post: {
      path: { projectId: string; credentialId: string };
      header: { "Idempotency-Key": string };
      body: {
        secret: string;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-servers": {
    /** List MCP servers with discovered tool snapshots */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create an MCP server (immutable version 1) */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        endpointUrl: string;
        transport: "streamable_http" | "legacy_sse";
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-servers/{serverId}/discover": {
    /** Discover the server's tools (a changed snapshot publishes a new version) */
    post: {
      path: { projectId: string; serverId: string };
      header: { "Idempotency-Key": string };
      body?: {
        credentialPolicyVersionId?: string | null;
      };
      responses: {
        200: Record<string, unknown>;
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-toolsets": {
    /** List toolsets */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Publish a toolset version */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        serverVersionId: string;
        tools: Array<{
          remoteToolName: string;
          approval?: ("never" | "always") | boolean;
        }>;
      };
      responses: {
        200: Record<string, unknown>;
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/members": {
    /** List principals with roles and scopes */
    get: {
      path: { projectId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create or update a member (edge-proxy mode: add a verified person by email) */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        subject: string;
        role: "owner" | "admin" | "member" | "viewer";
        scopes?: Array<string>;
      };
      responses: {
        200: Record<string, unknown>;
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/members/{memberId}": {
    /** Change a member's role (and scopes outside edge-proxy mode) */
    patch: {
      path: { projectId: string; memberId: string };
      header: { "Idempotency-Key": string };
      body: {
        role?: "owner" | "admin" | "member" | "viewer";
        scopes?: Array<string>;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Remove a member from the organization and its projects */
    delete: {
      path: { projectId: string; memberId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/members/{memberId}/project-access": {
    /** Edge-proxy mode: remove access to this project, keep organization access */
    delete: {
      path: { projectId: string; memberId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/model-catalog": {
    /** A provider's model catalog, fetched from the vendor */
    get: {
      path: { projectId: string };
      query: { providerId: string; search?: string; limit?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/model-presets": {
    /** List deployment, project and unavailable legacy presets */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create a project model preset */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        providerId: string;
        model: string;
        routing?: unknown;
        settings?: unknown | null;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/model-presets/{presetId}": {
    /** Archive a preset */
    delete: {
      path: { projectId: string; presetId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/model-providers": {
    /** List model provider connections (safe metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create a model provider connection */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        providerType: "gateway" | "vendor_a" | "vendor_b" | "vendor_c";
        apiKey: string;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/model-providers/{providerId}": {
    /** Remove a connection */
    delete: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/model-providers/{providerId}/credential": {
    /** Rotate a connection's API key */
    put: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      body: {
        apiKey: string;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/pending-work": {
    /** Unresolved caller tool calls and approvals of the project */
    get: {
      path: { projectId: string };
      responses: {
        200: {
          toolCalls: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            runId: string;
            sessionId: string;
            turnId: string;
            providerCallId: string;
            toolName: string;
            owner: "caller" | "platform";
            approvalRequired: boolean;
            status: "pending_approval" | "pending" | "claimed" | "running" | "succeeded" | "failed" | "expired" | "denied" | "cancelled";
            attempt: number;
            safeArguments: unknown;
            safeResult: unknown;
            failure: ({
              code: "tool_expired" | "tool_failed" | "platform_tool_failed" | "invalid_tool_arguments" | "invalid_tool_result" | "tool_retry_exhausted" | "approval_denied" | "approval_expired" | "tool_cancelled";
              message: string;
              path?: string;
              reason?: string;
            }) | null;
            execution: unknown | null;
            fence: string | null;
            leaseExpiresAt: string | null;
            claimedByPrincipalId: string | null;
            createdAt: string;
            updatedAt: string;
            completedAt: string | null;
          }>;
          approvals: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            runId: string;
            sessionId: string;
            toolCallId: string;
            toolName: string;
            status: "pending" | "approved" | "denied" | "expired";
            expiresAt: string;
            note: string | null;
            decidedByPrincipalId: string | null;
            decidedAt: string | null;
            createdAt: string;
          }>;
        };
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}": {
    /** Read a run */
    get: {
      path: { projectId: string; runId: string };
      responses: {
        200: {
          organizationId: string;
          projectId: string;
          id: string;
          threadId: string;
          sessionId: string;
          agentVersionId: string;
          createdByPrincipalId: string | null;
          state: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
          inputPublic: {
            message: string;
          };
          idempotencyKey: string | null;
          cancellationRequestedAt: string | null;
          admittedAt: string | null;
          settledAt: string | null;
          createdAt: string;
          updatedAt: string;
          failure: {
            errorCode: string;
            errorExplanation: string;
          } | null;
        };
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}/cancel": {
    /** Request cancellation (asynchronous) */
    post: {
      path: { projectId: string; runId: string };
      header: { "Idempotency-Key": string };
      responses: {
        202: {
          organizationId: string;
          projectId: string;
          id: string;
          threadId: string;
          sessionId: string;
          agentVersionId: string;
          createdByPrincipalId: string | null;
          state: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
          inputPublic: {
            message: string;
          };
          idempotencyKey: string | null;
          cancellationRequestedAt: string | null;
          admittedAt: string | null;
          settledAt: string | null;
          createdAt: string;
          updatedAt: string;
          failure: {
            errorCode: string;
            errorExplanation: string;
          } | null;
        };
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}/messages": {
    /** Page through a run's public messages */
    get: {
      path: { projectId: string; runId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}/resume": {
    /** Resume a settled run: a new run on that run's session */
    post: {
      path: { projectId: string; runId: string };
      header: { "Idempotency-Key": string };
      body: {
        message?: string;
        redactedInput?: string;
        files?: Array<unknown>;
      };
      responses: {
        202: {
          organizationId: string;
          projectId: string;
          id: string;
          threadId: string;
          sessionId: string;
          agentVersionId: string;
          createdByPrincipalId: string | null;
          state: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
          inputPublic: {
            message: string;
          };
          idempotencyKey: string | null;
          cancellationRequestedAt: string | null;
          admittedAt: string | null;
          settledAt: string | null;
          createdAt: string;
          updatedAt: string;
          failure: {
            errorCode: string;
            errorExplanation: string;
          } | null;
        };
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}/timeline": {
    /** Page through a run's timing waterfall */
    get: {
      path: { projectId: string; runId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sandbox-providers": {
    /** List sandbox provider connections (safe metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create a sandbox provider connection */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        providerType: "sandbox_vendor";
        apiKey: string;
        target?: string | null;
        restrictedEgress?: {
          allowedDomains: Array<string>;
          allowedCidrs: Array<string>;
        };
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sandbox-providers/{providerId}/configuration": {
    /** Change a connection's target and restricted egress */
    put: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      body: {
        target: string | null;
        restrictedEgress: {
          allowedDomains: Array<string>;
          allowedCidrs: Array<string>;
        };
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sandbox-providers/{providerId}/credential": {
    /** Rotate a connection's API key */
    put: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      body: {
        apiKey: string;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sandbox-providers/{providerId}/snapshots": {
    /** Every snapshot visible to the connection */
    get: {
      path: { projectId: string; providerId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions": {
    /** List sessions with status and token counters */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string; agentId?: string; status?: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out"; parentSessionId?: string; root?: "true" | "false" };
      responses: {
        200: {
          data: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            threadId: string;
            agentId: string;
            agentVersionId: string;
            title: string | null;
            status: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
            createdAt: string;
            lastActivityAt: string;
            latestRunId: string | null;
            parentSessionId: string | null;
            delegateKey: string | null;
            inputTokens: number;
            outputTokens: number;
            cacheReadTokens: number;
            cacheWriteTokens: number;
          }>;
          pageInfo: {
            nextCursor: string | null;
          };
        };
      };
    };
    /** Create a session and its first run */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        agentId?: string;
        agentVersionId?: string;
        title?: string | null;
        initialMessage?: string;
        files?: Array<unknown>;
      };
      responses: {
        201: {
          organizationId: string;
          projectId: string;
          id: string;
          threadId: string;
          agentId: string;
          agentVersionId: string;
          title: string | null;
          status: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
          createdAt: string;
          lastActivityAt: string;
          latestRunId: string | null;
          run: {
            organizationId: string;
            projectId: string;
            id: string;
            threadId: string;
            sessionId: string;
            agentVersionId: string;
            createdByPrincipalId: string | null;
            state: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
            inputPublic: {
              message: string;
            };
            idempotencyKey: string | null;
            cancellationRequestedAt: string | null;
            admittedAt: string | null;
            settledAt: string | null;
            createdAt: string;
            updatedAt: string;
            failure: {
              errorCode: string;
              errorExplanation: string;
            } | null;
          };
        };
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}": {
    /** Session detail */
    get: {
      path: { projectId: string; sessionId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/delegations": {
    /** The delegations of a coordinator session */
    get: {
      path: { projectId: string; sessionId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}": {
    /** One delegation */
    get: {
      path: { projectId: string; sessionId: string; delegationId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}/cancel": {
    /** Cancel a delegation */
    post: {
      path: { projectId: string; sessionId: string; delegationId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}/messages": {
    /** Send a message to a delegation's child session */
    post: {
      path: { projectId: string; sessionId: string; delegationId: string };
      header: { "Idempotency-Key": string };
      body: {
        message: string;
      };
      responses: {
        202: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/files": {
    /** List the files of the session's latest workspace backup */
    get: {
      path: { projectId: string; sessionId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/files/{path}": {
    /** Download one workspace file (the rest of the path is the file path) */
    get: {
      path: { projectId: string; sessionId: string; path: string };
      responses: {
        200: ReadableStream<Uint8Array>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/runs": {
    /** Queue a follow-up run */
    post: {
      path: { projectId: string; sessionId: string };
      header: { "Idempotency-Key": string };
      body: {
        message?: string;
        redactedInput?: string;
        files?: Array<unknown>;
      };
      responses: {
        202: {
          organizationId: string;
          projectId: string;
          id: string;
          threadId: string;
          sessionId: string;
          agentVersionId: string;
          createdByPrincipalId: string | null;
          state: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
          inputPublic: {
            message: string;
          };
          idempotencyKey: string | null;
          cancellationRequestedAt: string | null;
          admittedAt: string | null;
          settledAt: string | null;
          createdAt: string;
          updatedAt: string;
          failure: {
            errorCode: string;
            errorExplanation: string;
          } | null;
        };
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts": {
    /** List Skill drafts */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create a blank draft, or clone a published version */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body?: {
        skillId?: string;
        sourceSkillVersionId?: string;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts/{draftId}": {
    /** Draft metadata, folders and file bytes */
    get: {
      path: { projectId: string; draftId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Save draft metadata and instructions */
    patch: {
      path: { projectId: string; draftId: string };
      header: { "Idempotency-Key": string };
      body: {
        name?: string | null;
        description?: string | null;
        instructions?: string | null;
        license?: string | null;
        compatibility?: string | null;
        metadata?: Record<string, string>;
        allowedTools?: Array<string>;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Discard a draft */
    delete: {
      path: { projectId: string; draftId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts/{draftId}/directories": {
    /** Create a folder and its missing parents */
    post: {
      path: { projectId: string; draftId: string };
      header: { "Idempotency-Key": string };
      body: {
        path: string;
      };
      responses: {
        200: Record<string, unknown>;
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts/{draftId}/entries": {
    /** Delete a file or folder (`recursive=true` for a non-empty folder) */
    delete: {
      path: { projectId: string; draftId: string };
      query: { path: string; recursive?: "true" | "false" };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts/{draftId}/files": {
    /** Write a file (UTF-8 Markdown) */
    put: {
      path: { projectId: string; draftId: string };
      header: { "Idempotency-Key": string };
      body: {
        path: string;
        contentType: string;
        dataBase64: string;
      };
      responses: {
        200: Record<string, unknown>;
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts/{draftId}/publish": {
    /** Publish the draft as an immutable version */
    post: {
      path: { projectId: string; draftId: string };
      header: { "Idempotency-Key": string };
      body?: {
        key?: string;
        displayName?: string;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts/{draftId}/validate": {
    /** Validate the staged package */
    post: {
      path: { projectId: string; draftId: string };
      header: { "Idempotency-Key": string };
      body?: Record<string, never>;
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skills": {
    /** List Skills with their latest versions */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create a Skill and its version 1 */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        name: string;
        description: string;
        instructions: string;
        license?: string | null;
        compatibility?: string | null;
        metadata?: Record<string, string>;
        allowedTools?: Array<string>;
        files?: Array<{
          path: string;
          contentType: string;
          dataBase64: string;
        }>;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skills/{skillId}": {
    /** A Skill with all versions and manifests */
    get: {
      path: { projectId: string; skillId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Enable or disable a Skill */
    patch: {
      path: { projectId: string; skillId: string };
      header: { "Idempotency-Key": string };
      body: {
        enabled: boolean;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Remove a Skill */
    delete: {
      path: { projectId: string; skillId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skills/{skillId}/versions": {
    /** Publish the next version */
    post: {
      path: { projectId: string; skillId: string };
      header: { "Idempotency-Key": string };
      body: {
        name: string;
        description: string;
        instructions: string;
        license?: string | null;
        compatibility?: string | null;
        metadata?: Record<string, string>;
        allowedTools?: Array<string>;
        files?: Array<{
          path: string;
          contentType: string;
          dataBase64: string;
        }>;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skills/{skillId}/versions/{versionId}/export": {
    /** Exact instructions and resource bytes of a version */
    get: {
      path: { projectId: string; skillId: string; versionId: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/skills/{skillId}/versions/{versionId}/lifecycle": {
    /** Deprecate or revoke a version */
    patch: {
      path: { projectId: string; skillId: string; versionId: string };
      header: { "Idempotency-Key": string };
      body: {
        status: "deprecated" | "revoked";
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/storage-providers": {
    /** List object-storage connections (safe metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
    /** Create an object-storage connection */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        key: string;
        displayName: string;
        providerType: "s3";
        endpoint?: string | null;
        region: string;
        bucket: string;
        prefix?: string | null;
        forcePathStyle?: boolean;
        setDefault?: boolean;
        accessKeyId: string;
        secretAccessKey: string;
        sessionToken?: string | null;
      };
      responses: {
        201: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/storage-providers/{providerId}/credential": {
    /** Rotate write-only credentials */
    put: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      body: {
        accessKeyId: string;
        secretAccessKey: string;
        sessionToken?: string | null;
      };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/storage-providers/{providerId}/default": {
    /** Make the connection the organization default */
    put: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/storage-providers/{providerId}/objects": {
    /** One folder level of stored objects */
    get: {
      path: { projectId: string; providerId: string };
      query: { prefix?: string; cursor?: string; limit?: string };
      responses: {
        200: Record<string, unknown>;
      };
    };
  };
  "/v1/projects/{projectId}/tool-calls": {
    /** List the tool calls of a run */
    get: {
      path: { projectId: string };
      query: { runId: string; limit?: string; cursor?: string };
      responses: {
        200: {
          data: Array<{
            organizationId: string;
            projectId: string;
            id: string;
            runId: string;
            sessionId: string;
            turnId: string;
            providerCallId: string;
            toolName: string;
            owner: "caller" | "platform";
            approvalRequired: boolean;
            status: "pending_approval" | "pending" | "claimed" | "running" | "succeeded" | "failed" | "expired" | "denied" | "cancelled";
            attempt: number;
            safeArguments: unknown;
            safeResult: unknown;
            failure: ({
              code: "tool_expired" | "tool_failed" | "platform_tool_failed" | "invalid_tool_arguments" | "invalid_tool_result" | "tool_retry_exhausted" | "approval_denied" | "approval_expired" | "tool_cancelled";
              message: string;
              path?: string;
              reason?: string;
            }) | null;
            execution: unknown | null;
            fence: string | null;
            leaseExpiresAt: string | null;
            claimedByPrincipalId: string | null;
            createdAt: string;
            updatedAt: string;
            completedAt: string | null;
          }>;
          pageInfo: {
            nextCursor: string | null;
          };
        };
      };
    };
  };
  "/v1/projects/{projectId}/tool-calls/{toolCallId}/claim": {
    /** Claim caller work: a lease with its `fence` */
    post: {
      path: { projectId: string; toolCallId: string };
      header: { "Idempotency-Key": string };
      body?: Record<string, never>;
      responses: {
        200: {
          organizationId: string;
          projectId: string;
          id: string;
          runId: string;
          sessionId: string;
          turnId: string;
          providerCallId: string;
          toolName: string;
          owner: "caller" | "platform";
          approvalRequired: boolean;
          status: "pending_approval" | "pending" | "claimed" | "running" | "succeeded" | "failed" | "expired" | "denied" | "cancelled";
          attempt: number;
          safeArguments: unknown;
          safeResult: unknown;
          failure: ({
            code: "tool_expired" | "tool_failed" | "platform_tool_failed" | "invalid_tool_arguments" | "invalid_tool_result" | "tool_retry_exhausted" | "approval_denied" | "approval_expired" | "tool_cancelled";
            message: string;
            path?: string;
            reason?: string;
          }) | null;
          execution: unknown | null;
          fence: string;
          leaseExpiresAt: string | null;
          claimedByPrincipalId: string | null;
          createdAt: string;
          updatedAt: string;
          completedAt: string | null;
          arguments: unknown;
        };
      };
    };
  };
  "/v1/projects/{projectId}/tool-calls/{toolCallId}/release": {
    /** Release the lease with the fence */
    post: {
      path: { projectId: string; toolCallId: string };
      header: { "Idempotency-Key": string };
      body: {
        fence: string;
      };
      responses: {
        200: {
          organizationId: string;
          projectId: string;
          id: string;
          runId: string;
          sessionId: string;
          turnId: string;
          providerCallId: string;
          toolName: string;
          owner: "caller" | "platform";
          approvalRequired: boolean;
          status: "pending_approval" | "pending" | "claimed" | "running" | "succeeded" | "failed" | "expired" | "denied" | "cancelled";
          attempt: number;
          safeArguments: unknown;
          safeResult: unknown;
          failure: ({
            code: "tool_expired" | "tool_failed" | "platform_tool_failed" | "invalid_tool_arguments" | "invalid_tool_result" | "tool_retry_exhausted" | "approval_denied" | "approval_expired" | "tool_cancelled";
            message: string;
            path?: string;
            reason?: string;
          }) | null;
          execution: unknown | null;
          fence: string | null;
          leaseExpiresAt: string | null;
          claimedByPrincipalId: string | null;
          createdAt: string;
          updatedAt: string;
          completedAt: string | null;
        };
      };
    };
  };
  "/v1/projects/{projectId}/tool-calls/{toolCallId}/renew": {
    /** Renew the lease with the fence */
    post: {
      path: { projectId: string; toolCallId: string };
      header: { "Idempotency-Key": string };
      body: {
        fence: string;
      };
      responses: {
        200: {
          organizationId: string;
          projectId: string;
          id: string;
          runId: string;
          sessionId: string;
          turnId: string;
          providerCallId: string;
          toolName: string;
          owner: "caller" | "platform";
          approvalRequired: boolean;
          status: "pending_approval" | "pending" | "claimed" | "running" | "succeeded" | "failed" | "expired" | "denied" | "cancelled";
          attempt: number;
          safeArguments: unknown;
          safeResult: unknown;
          failure: ({
            code: "tool_expired" | "tool_failed" | "platform_tool_failed" | "invalid_tool_arguments" | "invalid_tool_result" | "tool_retry_exhausted" | "approval_denied" | "approval_expired" | "tool_cancelled";
            message: string;
            path?: string;
            reason?: string;
          }) | null;
          execution: unknown | null;
          fence: string | null;
          leaseExpiresAt: string | null;
          claimedByPrincipalId: string | null;
          createdAt: string;
          updatedAt: string;
          completedAt: string | null;
        };
      };
    };
  };
  "/v1/projects/{projectId}/tool-calls/{toolCallId}/result": {
    /** Submit the result with the fence */
    post: {
      path: { projectId: string; toolCallId: string };
      header: { "Idempotency-Key": string };
      body: {
        fence: string;
        safeResult: {
          version: 1;
          status: "success";
          value: unknown;
        } | ({
          version: 1;
          status: "failure";
          value?: {
            message?: string;
          } | null;
        });
      };
      responses: {
        202: {
          outcome: "submitted";
          normalizedFailure?: {
            code: "invalid_tool_result";
            path: string;
          };
        };
      };
    };
  };
};
