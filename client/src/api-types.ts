// Generated from the service's OpenAPI document by client/scripts/render-types.ts. Do not edit:
// regenerate with `UPDATE_CLIENT_TYPES=1 npx vitest run test/integration/client-types.test.ts`.

/** A page of a list route: `nextCursor` is null on the last page. */
export type Page<T> = { data: Array<T>; pageInfo: { nextCursor: string | null } };

export type AgentDeleted = {
  id: string;
  deleted: true;
};

export type AgentPage = Page<PublicAgent>;

export type AgentVersionList = {
  data: Array<PublicAgentVersion>;
};

export type AgentWithVersions = PublicAgent & {
  versions: Array<PublicAgentVersion>;
};

export type ApiKeyPage = Page<PublicApiKey>;

export type ApiKeyRevoked = {
  id: string;
  revoked: true;
};

export type ApprovalPage = Page<PublicApproval>;

export type AttachmentMetadata = {
  id: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
};

export type AuthProvider = {
  mode: "development" | "hosted" | "edge_proxy";
  loginPath: string | null;
  logoutSupported: boolean;
};

export type CatalogEntry = {
  providerType: "gateway" | "vendor_a" | "vendor_b" | "vendor_c";
  model: string;
  catalogId: string;
  displayName: string;
  contextWindow: number | null;
  outputLimit: number | null;
  reasoning: boolean | null;
  adaptiveThinking?: boolean | null;
  thinkingCanBeDisabled?: boolean | null;
  effortLevels?: (Array<"none" | "low" | "medium" | "high" | "xhigh" | "max">) | null;
  pricesUsd?: ({
    input: number;
    output: number;
    cacheRead: number | null;
    cacheWrite: number | null;
  }) | null;
  runtimeSupported: boolean;
};

export type Context = {
  principal: PublicPrincipal;
  organization: PublicOrganization;
  project: PublicProject;
  organizations: Array<PublicOrganization>;
  projects: Array<PublicProject>;
  activeModelPresets: Array<string>;
  authProvider: string;
  currency: string;
  isIapDefaultProject?: boolean;
};

export type ContextMeter = {
  lastInputTokens: number | null;
  window: number | null;
  compactions: number;
};

export type CreatedApiKey = PublicApiKey & {
  shown: true;
  secret: string;
};

export type CreatedDirectory = {
  path: string;
  kind: "directory";
  created: boolean;
  createdPaths: Array<string>;
};

export type CreatedSession = PublicSession & {
  run: PublicRun | null;
};

export type DelegationList = {
  data: Array<PublicDelegation>;
};

export type DelegationMessageAccepted = {
  delegationId: string;
  childSessionId: string;
  childRunId: string;
  status: "queued";
};

export type DeletedEntry = {
  path: string;
  kind: "file" | "directory";
  deleted: true;
  deletedPaths: Array<string>;
};

export type DevelopmentLogin = {
  authenticated: true;
  context: Context;
};

export type EventWebhookDeleted = {
  id: string;
  deleted: true;
};

export type EventWebhookList = {
  data: Array<PublicEventWebhook>;
  pageInfo: {
    nextCursor: null;
  };
  credentialEncryptionConfigured: boolean;
  privateNetworkEndpointsAllowed: boolean;
};

export type FollowUpAnswer = PublicRun | QueuedTurn;

export type ForkedSession = CreatedSession & {
  forkedFrom: {
    sessionId: string;
    runId: string;
  };
  workspace: "copied" | "empty";
};

export type Logout = {
  redirectUrl?: string;
};

export type McpCredentialPage = Page<PublicMcpCredential>;

export type McpCredentialPolicyVersionPage = Page<PublicMcpCredentialPolicyVersion>;

export type McpDiscovery = {
  server: PublicMcpServer;
  version: PublicMcpServerVersion;
  changed: boolean;
};

export type McpServerPage = Page<PublicMcpServer>;

export type McpToolSnapshotEntry = {
  name: string;
  description: string | null;
  inputSchema: Record<string, unknown>;
};

export type McpToolsetPage = Page<PublicMcpToolset>;

export type MemberList = {
  data: Array<PublicMember>;
};

export type MemberRemoved = {
  id: string;
  removed: true;
};

export type MemoryAuthor = ({
  type: "principal";
  principalId: string;
  apiKeyId: string | null;
}) | {
  type: "session";
  sessionId: string;
  runId: string;
};

export type MemoryDeleted = {
  id: string;
  deleted: true;
};

export type MemoryListPage = {
  data: Array<({
    type: "memory";
    id: string;
    storeId: string;
    path: string;
    content: string | null;
    contentSha256: string;
    contentSizeBytes: number;
    versionId: string;
    createdAt: string;
    updatedAt: string;
  }) | {
    type: "prefix";
    path: string;
  }>;
  pageInfo: {
    nextCursor: string | null;
  };
};

export type MemoryStorePage = Page<PublicMemoryStore>;

export type MemoryVersionPage = Page<PublicMemoryVersion>;

export type MessagePage = Page<PublicMessage>;

export type ModelCatalog = {
  providerId: string;
  providerType: "gateway" | "vendor_a" | "vendor_b" | "vendor_c";
  data: Array<CatalogEntry>;
  total: number;
};

export type ModelPresetArchived = {
  id: string;
  key: string;
  archived: true;
};

export type ModelPresetPage = Page<PublicModelPreset>;

export type ModelPrices = {
  input: number;
  output: number;
  cacheRead: number | null;
  cacheWrite: number | null;
  source: "catalog" | "operator";
};

export type ModelProviderPage = Page<PublicModelProvider>;

export type ModelProviderRemoved = {
  id: string;
  removed: true;
};

export type OrganizationPage = Page<PublicOrganization>;

export type PendingTurn = {
  id: string;
  sessionId: string;
  position: number;
  ifBusy: "enqueue" | "interrupt";
  message: string;
  attachments: Array<{
    id: string;
    filename: string;
    contentType: string;
    sizeBytes: number;
    sha256: string;
    createdAt: string;
  }>;
  createdAt: string;
};

export type PendingTurnWithdrawn = {
  id: string;
  withdrawn: true;
};

export type PendingWork = {
  toolCalls: Array<PublicToolCall>;
  approvals: Array<PublicApproval>;
};

export type ProjectBudget = {
  maxMonthlyCost: number | null;
  maxMonthlyTokens: number | null;
};

export type ProjectDeleted = {
  id: string;
  deleted: true;
};

export type ProjectPage = Page<PublicProject>;

export type ProjectWithOrganization = PublicProject & {
  organization: PublicOrganization;
  effectiveRetention: {
    sessions: string | null;
    events: string | null;
  };
};

export type PublicAgent = {
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
};

export type PublicAgentVersion = {
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

export type PublicApiKey = {
  id: string;
  organizationId: string;
  name: string;
  scopes: Array<string>;
  secretHint: string;
  createdByPrincipalId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

export type PublicApproval = {
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

export type PublicCompaction = {
  compaction: number;
  runId: string;
  turnId: string;
  reason: "threshold" | "overflow";
  tokensBefore: number;
  tokensAfter: number;
  messagesCovered: number;
  throughSequence: number;
  summary: string;
  createdAt: string;
};

export type PublicDelegation = {
  id: string;
  coordinatorSessionId: string;
  delegateKey: string;
  childAgentVersionId: string;
  childSessionId: string;
  childThreadId: string;
  workspaceSessionId: string;
  state: "open" | "closed";
  latestChildRunId: string | null;
  latestChildRunState: ("queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out") | null;
  createdAt: string;
  closedAt: string | null;
  childRuns: Array<{
    childRunId: string;
    coordinatorRunId: string | null;
    toolCallId: string | null;
    state: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out";
    queuedAt: string;
    startedAt: string | null;
    settledAt: string | null;
  }>;
};

export type PublicEventWebhook = {
  id: string;
  organizationId: string;
  projectId: string;
  displayName: string;
  endpointUrl: string;
  eventKinds: Array<string> | null;
  includeMessageContent: boolean;
  enabled: boolean;
  status: "active" | "failing" | "disabled";
  disabledReason: ("user" | "endpoint_gone") | null;
  credentialConfigured: boolean;
  credentialFingerprint: string | null;
  credentialVersion: number;
  previousCredentialExpiresAt: string | null;
  deliveredPosition: string;
  cursor: string;
  pendingEvents: number;
  consecutiveFailures: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  lastResponseStatus: number | null;
  lastErrorCode: string | null;
  createdAt: string;
  updatedAt: string;
};

export type PublicMcpCredential = {
  id: string;
  organizationId: string;
  key: string;
  displayName: string;
  kind: "static_bearer" | "api_key_header";
  headerName: string | null;
  lifecycle: "active" | "revoked";
  credentialConfigured: boolean;
  credentialFingerprint: string | null;
  credentialVersion: number;
  revokedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export type PublicMcpCredentialPolicyVersion = {
  id: string;
  policyId: string;
  key: string;
  version: number;
  latestVersion: number;
  displayName: string;
  credentialId: string;
  exactOrigin: string;
  pathPrefix: string;
  timeoutMs: number;
  maximumResponseBytes: number;
  active: boolean;
  createdAt: string;
};

export type PublicMcpServer = {
  id: string;
  organizationId: string;
  key: string;
  displayName: string;
  endpointUrl: string;
  transport: "streamable_http" | "legacy_sse";
  latestVersion: number;
  latestVersionId: string;
  versions: Array<PublicMcpServerVersion>;
  createdAt: string;
};

export type PublicMcpServerVersion = {
  id: string;
  serverId: string;
  version: number;
  tools: Array<McpToolSnapshotEntry>;
  discoveredAt: string | null;
  createdAt: string;
};

export type PublicMcpToolset = {
  id: string;
  projectId: string;
  key: string;
  latestVersion: number;
  latestVersionId: string;
  versions: Array<PublicMcpToolsetVersion>;
  createdAt: string;
};

export type PublicMcpToolsetVersion = {
  id: string;
  toolsetId: string;
  version: number;
  displayName: string;
  serverVersionId: string;
  tools: Array<{
    remoteToolName: string;
    approval: "never" | "always";
  }>;
  createdAt: string;
};

export type PublicMember = {
  id: string;
  subject: string;
  scopes: Array<string>;
  role: "owner" | "admin" | "member" | "viewer";
  organizationRole: ("owner" | "admin" | "member" | "viewer") | null;
  displayName?: string;
  email?: string;
};

export type PublicMemory = {
  id: string;
  storeId: string;
  path: string;
  content: string | null;
  contentSha256: string;
  contentSizeBytes: number;
  versionId: string;
  createdAt: string;
  updatedAt: string;
};

export type PublicMemoryStore = {
  organizationId: string;
  projectId: string;
  id: string;
  name: string;
  description: string;
  metadata: Record<string, string>;
  mountPath: string;
  memoryCount: number;
  sizeBytes: number;
  versionCount: number;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export type PublicMemoryVersion = {
  id: string;
  storeId: string;
  memoryId: string;
  operation: "created" | "modified" | "deleted";
  path: string | null;
  content: string | null;
  contentSha256: string | null;
  contentSizeBytes: number | null;
  writtenBy: MemoryAuthor;
  redactedAt: string | null;
  redactedBy: MemoryAuthor | null;
  createdAt: string;
};

export type PublicMessage = {
  id: string;
  threadId: string;
  runId: string;
  sequence: number;
  role: "user" | "assistant" | "tool";
  text: string | null;
  toolCalls: Array<{
    toolCallId: string;
    toolName: string;
  }>;
  toolResult: {
    toolCallId: string;
    toolName: string;
    isError: boolean;
  } | null;
  attachments: Array<AttachmentMetadata>;
  createdAt: string;
};

export type PublicModelInvocation = {
  id: string;
  runId: string;
  turnId: string;
  attempt: number;
  status: "started" | "succeeded" | "failed";
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
  finishReason: string | null;
  providerFinishReason: string | null;
  errorCode: string | null;
  errorExplanation: string | null;
  thinking: string | null;
  contextWindow: number | null;
  startedAt: string;
  completedAt: string | null;
};

export type PublicModelPreset = {
  id: string;
  organizationId: string;
  projectId: string | null;
  key: string;
  displayName: string;
  origin: "deployment" | "project";
  providerId: string | null;
  providerKey: string;
  providerType: "gateway" | "vendor_a" | "vendor_b" | "vendor_c";
  model: string;
  routing: Record<string, unknown>;
  settings: Record<string, unknown> | null;
  available: boolean;
  prices: ModelPrices | null;
  createdAt: string | null;
};

export type PublicModelProvider = {
  id: string;
  organizationId: string;
  key: string;
  displayName: string;
  providerType: "gateway" | "vendor_a" | "vendor_b" | "vendor_c";
  credentialConfigured: boolean;
  credentialFingerprint: string | null;
  credentialVersion: number;
  createdAt: string;
  updatedAt: string;
};

export type PublicOrganization = {
  id: string;
  slug: string;
  name: string;
  createdAt: string;
};

export type PublicPrincipal = {
  id: string;
  organizationId: string;
  projectId: string;
  kind: "api_key" | "human" | "service";
  subject: string;
  scopes: Array<string>;
  displayName?: string;
  organizationRole: ("owner" | "admin" | "member" | "viewer") | null;
  projectRole: ("owner" | "admin" | "member" | "viewer") | null;
};

export type PublicProductEvent = {
  id: string;
  organizationId: string;
  projectId: string;
  aggregateType: string;
  aggregateId: string;
  aggregateSequence: number;
  projectPosition: string;
  kind: string;
  publicPayload: Record<string, unknown>;
  occurredAt: string;
  message?: Record<string, unknown>;
};

export type PublicProject = PublicOrganization & {
  organizationId: string;
  retention: {
    sessions: string | null;
    events: string | null;
  };
  budget: ProjectBudget | null;
  agentProtocols: {
    a2a: boolean;
    mcp: boolean;
  };
};

export type PublicRun = {
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
  failure: RunFailure | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
  context: ContextMeter;
};

export type PublicSandbox = {
  id: string;
  workspaceSessionId: string;
  providerId: string;
  snapshotId: string;
  network: "none" | "restricted";
  createdAt: string;
  lastUsedAt: string;
};

export type PublicSandboxCommand = {
  id: string;
  sandboxId: string;
  runId: string;
  toolCallId: string;
  toolName: string;
  safeCommand: Record<string, unknown>;
  safeResult: Record<string, unknown> | null;
  startedAt: string;
  completedAt: string | null;
};

export type PublicSandboxProvider = {
  id: string;
  organizationId: string;
  key: string;
  displayName: string;
  providerType: "sandbox_vendor";
  target: string | null;
  restrictedEgress: {
    allowedDomains: Array<string>;
    allowedCidrs: Array<string>;
  };
  credentialConfigured: boolean;
  credentialFingerprint: string | null;
  credentialVersion: number;
  createdAt: string;
  updatedAt: string;
};

export type PublicSchedule = {
  id: string;
  organizationId: string;
  projectId: string;
  name: string | null;
  agentId: string;
  agentVersionId: string | null;
  cron: string | null;
  intervalSeconds: number | null;
  timeZone: string;
  message: string;
  files: Array<{
    uploadId: string;
  }>;
  overlap: "skip" | "buffer_one" | "allow_all";
  catchupWindowSeconds: number;
  target: "new_session" | "session";
  sessionId: string | null;
  ifBusy: ("enqueue" | "skip") | null;
  memoryStores: Array<{
    storeId: string;
    access: "read_write" | "read_only";
    instructions: string | null;
  }>;
  paused: boolean;
  createdByPrincipalId: string;
  actingPrincipalId: string;
  createdAt: string;
  updatedAt: string;
  nextFirings: Array<string>;
  recentFirings: Array<ScheduleFiring>;
};

export type PublicSession = {
  organizationId: string;
  projectId: string;
  id: string;
  threadId: string;
  agentId: string;
  agentVersionId: string;
  title: string | null;
  status: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out" | "idle";
  createdAt: string;
  lastActivityAt: string;
  latestRunId: string | null;
  archivedAt: string | null;
  budget: SessionBudget | null;
};

export type PublicSessionListItem = PublicSession & {
  parentSessionId: string | null;
  delegateKey: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
  forkedFrom: {
    sessionId: string;
    runId: string;
  } | null;
};

export type PublicSessionMemoryStore = {
  storeId: string;
  name: string;
  description: string;
  mountPath: string;
  access: "read_write" | "read_only";
  instructions: string | null;
};

export type PublicSessionSkill = {
  skillId: string;
  skillVersionId: string;
  version: number;
  name: string;
  description: string;
  contentHash: string;
  status: "active" | "deprecated" | "revoked";
};

export type PublicSkill = SkillEnablement & {
  organizationId: string;
  projectId: string;
  displayName: string;
  latestVersion: PublicSkillVersion | null;
  createdAt: string;
  updatedAt: string;
};

export type PublicSkillDraft = PublicSkillDraftSummary & {
  instructions: string | null;
  directories: Array<string>;
  files: Array<{
    path: string;
    contentType: string;
    dataBase64: string;
    sizeBytes: number;
  }>;
};

export type PublicSkillDraftSummary = {
  organizationId: string;
  projectId: string;
  id: string;
  skillId: string | null;
  sourceSkillVersionId: string | null;
  name: string | null;
  description: string | null;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: Array<string>;
  createdAt: string;
  updatedAt: string;
};

export type PublicSkillVersion = {
  organizationId: string;
  projectId: string;
  id: string;
  skillId: string;
  version: number;
  name: string;
  description: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: Array<string>;
  files: Array<SkillFileManifest>;
  contentHash: string;
  status: "active" | "deprecated" | "revoked";
  createdByPrincipalId: string | null;
  createdAt: string;
};

export type PublicSnapshot = {
  id: string;
  name: string;
  state: "active" | "pending" | "failed" | "retired";
  image: string;
  resource: {
    cpu: number;
    memoryMb: number;
    diskMb: number;
  };
  region: string;
  class: string;
  createdAt: string;
  updatedAt: string;
  available: boolean;
};

export type PublicStorageProvider = {
  id: string;
  organizationId: string;
  key: string;
  displayName: string;
  providerType: "s3";
  endpoint: string | null;
  region: string;
  bucket: string;
  prefix: string | null;
  forcePathStyle: boolean;
  isDefault: boolean;
  credentialConfigured: boolean;
  credentialFingerprint: string | null;
  credentialVersion: number;
  createdAt: string;
  updatedAt: string;
};

export type PublicToolCall = {
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
  failure: ToolCallFailure | null;
  execution: unknown | null;
  fence: string | null;
  leaseExpiresAt: string | null;
  claimedByPrincipalId: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
};

export type PublicUpload = {
  id: string;
  organizationId: string;
  projectId: string;
  name: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
  expiresAt: string | null;
};

export type PublicWorkspaceBackup = {
  id: string;
  workspaceSessionId: string;
  runId: string;
  generation: number;
  storageProviderId: string;
  fileCount: number;
  totalBytes: number;
  archiveSizeBytes: number;
  archiveSha256: string;
  createdAt: string;
};

export type PublishedSkillDraft = {
  draftId: string;
  skill: PublicSkill;
  version: PublicSkillVersion;
};

export type PutFileResult = {
  path: string;
  kind: "file";
  contentType: string;
  sizeBytes: number;
  created: boolean;
  createdDirectories: Array<string>;
};

export type QueuedTurn = {
  queued: true;
  pendingTurn: PendingTurn;
};

export type RestorePreview = {
  projects: Array<{
    slug: string;
    name: string;
    action: "create" | "fill_empty_project" | "blocked";
    reason?: string;
  }>;
  conflicts: Array<{
    resource: string;
    id: string;
    key?: string;
    message: string;
  }>;
  warnings: Array<{
    code: string;
    id: string;
    message: string;
  }>;
  counts: Record<string, number>;
  requiredCredentials: Array<{
    kind: "modelProviders" | "sandboxProviders" | "storageProviders" | "mcpCredentials" | "eventWebhooks";
    id: string;
    key?: string;
    displayName: string;
    credentialFingerprint: string | null;
    value: "string" | "accessKeyPair" | "signingSecret";
  }>;
  ready: boolean;
};

export type RestoreResult = {
  projects: Array<{
    id: string;
    slug: string;
    name: string;
    action: "create" | "fill_empty_project";
  }>;
  counts: Record<string, number>;
};

export type RunFailure = {
  errorCode: string;
  errorExplanation: string;
};

export type SandboxProviderPage = Page<PublicSandboxProvider>;

export type ScheduleDeleted = {
  id: string;
  deleted: true;
};

export type ScheduleFiring = {
  id: string;
  scheduledAt: string;
  firedAt: string;
  outcome: "started" | "enqueued" | "skipped" | "failed";
  sessionId: string | null;
  runId: string | null;
  pendingTurnId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
};

export type ScheduleFiringPage = Page<ScheduleFiring>;

export type SchedulePage = Page<PublicSchedule>;

export type ScheduleTriggered = {
  id: string;
  triggered: true;
};

export type SessionBudget = {
  maxCost: number | null;
  maxTokens: number | null;
};

export type SessionDebug = PendingWork & {
  productEvents: Array<PublicProductEvent>;
  modelInvocations: Array<PublicModelInvocation>;
  sandboxes: Array<PublicSandbox>;
  workspaceBackups: Array<PublicWorkspaceBackup>;
  sandboxCommands: Array<PublicSandboxCommand>;
  compactions: Array<PublicCompaction>;
};

export type SessionDeleted = {
  id: string;
  deleted: true;
};

export type SessionDetail = PublicSessionListItem & {
  runs: Array<PublicRun>;
  transcript: Array<PublicMessage>;
  timeline: Array<TimelineEntry>;
  pendingWork: PendingWork;
  pendingTurns: Array<PendingTurn>;
  context: ContextMeter;
  debug: SessionDebug;
  skills: Array<PublicSessionSkill>;
  tools: Array<ToolSummary>;
  delegations: Array<PublicDelegation>;
  memoryStores: Array<PublicSessionMemoryStore>;
  memoryWrites: Array<SessionMemoryWrite>;
};

export type SessionMemoryWrite = {
  runId: string;
  storeId: string;
  memoryId: string;
  versionId: string;
  operation: "created" | "modified" | "deleted";
  path: string | null;
  contentSizeBytes: number | null;
  createdAt: string;
};

export type SessionPage = Page<PublicSessionListItem>;

export type SessionRefreshed = {
  refreshed: true;
  expiresInSeconds: number;
};

export type SignInRedirect = {
  redirectUrl: string;
};

export type SkillDeleted = AgentDeleted & {
  key: string;
};

export type SkillDetail = PublicSkill & {
  versions: Array<PublicSkillVersion>;
};

export type SkillDraftDiscarded = {
  id: string;
  deleted: true;
};

export type SkillDraftPage = Page<PublicSkillDraftSummary>;

export type SkillDraftValidation = {
  valid: boolean;
  problems: Array<{
    path: string;
    message: string;
  }>;
  contentHash: string | null;
};

export type SkillEnablement = {
  id: string;
  key: string;
  enabled: boolean;
  disabledAt: string | null;
};

export type SkillFileManifest = {
  path: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
};

export type SkillPackageFile = {
  path: string;
  contentType: string;
  dataBase64: string;
};

export type SkillPage = Page<PublicSkill>;

export type SkillVersionExport = {
  skillId: string;
  skillVersionId: string;
  version: number;
  contentHash: string;
  status: "active" | "deprecated" | "revoked";
  name: string;
  description: string;
  instructions: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: Array<string>;
  files: Array<SkillPackageFile>;
  skillMd: string;
};

export type SnapshotList = Page<PublicSnapshot>;

export type StorageProviderPage = Page<PublicStorageProvider>;

export type StoredObjectListing = {
  prefix: string;
  folders: Array<string>;
  objects: Array<{
    key: string;
    sizeBytes: number;
    lastModifiedAt?: string;
  }>;
  truncated: boolean;
  cursor?: string;
};

export type TimelineEntry = {
  entrySequence: number;
  runId: string;
  kind: "queue" | "execution" | "model_invocation";
  modelInvocationId: string | null;
  turnId: string | null;
  attempt: number | null;
  status: string;
  finishReason: string | null;
  errorCode: string | null;
  startedAt: string;
  completedAt: string | null;
  durationMs: number | null;
};

export type TimelinePage = Page<TimelineEntry>;

export type ToolCallClaim = {
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
  failure: ToolCallFailure | null;
  execution: unknown | null;
  fence: string;
  leaseExpiresAt: string | null;
  claimedByPrincipalId: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  arguments: unknown;
};

export type ToolCallFailure = {
  code: "tool_expired" | "tool_failed" | "platform_tool_failed" | "invalid_tool_arguments" | "invalid_tool_result" | "tool_retry_exhausted" | "approval_denied" | "approval_expired" | "tool_cancelled";
  message: string;
  path?: string;
  reason?: string;
};

export type ToolCallPage = Page<PublicToolCall>;

export type ToolResultSubmission = {
  outcome: "submitted";
  normalizedFailure?: {
    code: "invalid_tool_result";
    path: string;
  };
};

export type ToolSummary = {
  name: string;
  description: string;
  owner: "caller" | "platform";
  approval: "never" | "always";
};

export type UploadDeleted = {
  id: string;
  deleted: true;
};

export type UploadPage = Page<PublicUpload>;

export type UsageGroup = {
  key: string | null;
  runs: number;
  invocations: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
};

export type UsageLedger = {
  from: string;
  to: string;
  groupBy: "day" | "agent" | "preset" | "apiKey";
  currency: string;
  totals: {
    runs: number;
    invocations: number;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    cost: number;
  };
  groups: Array<UsageGroup>;
};

export type WorkspaceFileList = {
  data: Array<{
    name: string;
    path: string;
    sizeBytes: number;
  }>;
  generation: number | null;
  backedUpAt: string | null;
  lastRunId: string | null;
};

export type ErrorEnvelope = {
  error: {
    code: "bad_request" | "unauthenticated" | "forbidden" | "not_found" | "conflict" | "idempotency_conflict" | "cursor_expired" | "rate_limited" | "service_unavailable" | "internal_error";
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
        200: DevelopmentLogin;
      };
    };
  };
  "/v1/auth/logout": {
    /** End the browser session and clear its cookies */
    post: {
      responses: {
        200: Logout;
      };
    };
  };
  "/v1/auth/provider": {
    /** The configured sign-in provider: `{mode, loginPath, logoutSupported}` */
    get: {
      responses: {
        200: AuthProvider;
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
        200: Context;
      };
    };
  };
  "/v1/context": {
    /** The active organization, project and principal */
    get: {
      responses: {
        200: Context;
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
        200: OrganizationPage;
      };
    };
  };
  "/v1/organizations/{organizationId}": {
    /** Organization identity and creation time */
    get: {
      path: { organizationId: string };
      responses: {
        200: PublicOrganization;
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
        201: RestoreResult;
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
        200: RestorePreview;
      };
    };
  };
  "/v1/projects": {
    /** List the projects of the organization */
    get: {
      query: { limit?: string; cursor?: string };
      responses: {
        200: ProjectPage;
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
        201: PublicProject;
      };
    };
  };
  "/v1/projects/{projectId}": {
    /** Read project and organization metadata */
    get: {
      path: { projectId: string };
      responses: {
        200: ProjectWithOrganization;
      };
    };
    /** Change the project's retention windows (`retention.sessions`, `retention.events`: a duration such as `30d`, `12h` or `90m`, null for the installation default; omitted: unchanged), its monthly budget (`budget: {maxMonthlyCost?, maxMonthlyTokens?}`, null for none) and whether its agents answer over the standard agent protocols (`agentProtocols: {a2a?, mcp?}`, booleans; omitted: unchanged; each applies only while the installation serves that protocol) */
    patch: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        retention?: {
          sessions?: string | null;
          events?: string | null;
        };
        budget?: ({
          maxMonthlyCost?: number | null;
          maxMonthlyTokens?: number | null;
        }) | null;
        agentProtocols?: {
          a2a?: boolean;
          mcp?: boolean;
        };
      };
      responses: {
        200: ProjectWithOrganization;
      };
    };
    /** Hard-delete a project and every row it owns */
    delete: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: ProjectDeleted;
      };
    };
  };
  "/v1/projects/{projectId}/agents": {
    /** List agent definitions */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: AgentPage;
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
        201: AgentWithVersions;
      };
    };
  };
  "/v1/projects/{projectId}/agents/{agentId}": {
    /** An agent definition and all its versions */
    get: {
      path: { projectId: string; agentId: string };
      responses: {
        200: AgentWithVersions;
      };
    };
    /** Archive an agent */
    delete: {
      path: { projectId: string; agentId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: AgentDeleted;
      };
    };
  };
  "/v1/projects/{projectId}/agents/{agentId}/versions": {
    /** List an agent's versions */
    get: {
      path: { projectId: string; agentId: string };
      responses: {
        200: AgentVersionList;
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
        201: PublicAgentVersion;
      };
    };
  };
  "/v1/projects/{projectId}/api-keys": {
    /** List the organization's API keys (no secrets) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: ApiKeyPage;
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
        201: CreatedApiKey;
      };
    };
  };
  "/v1/projects/{projectId}/api-keys/{apiKeyId}": {
    /** Revoke an API key */
    delete: {
      path: { projectId: string; apiKeyId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: ApiKeyRevoked;
      };
    };
  };
  "/v1/projects/{projectId}/approvals": {
    /** List the approvals of a run */
    get: {
      path: { projectId: string };
      query: { runId: string; limit?: string; cursor?: string };
      responses: {
        200: ApprovalPage;
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
        200: PublicApproval;
      };
    };
  };
  "/v1/projects/{projectId}/event-webhooks": {
    /** List event webhooks with delivery status */
    get: {
      path: { projectId: string };
      responses: {
        200: EventWebhookList;
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
        201: PublicEventWebhook;
      };
    };
  };
  "/v1/projects/{projectId}/event-webhooks/{webhookId}": {
    /** A webhook with its delivery status and last error */
    get: {
      path: { projectId: string; webhookId: string };
      responses: {
        200: PublicEventWebhook;
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
        200: PublicEventWebhook;
      };
    };
    /** Delete a webhook */
    delete: {
      path: { projectId: string; webhookId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: EventWebhookDeleted;
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
        200: PublicEventWebhook;
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
        200: McpCredentialPolicyVersionPage;
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
        200: PublicMcpCredentialPolicyVersion;
        201: PublicMcpCredentialPolicyVersion;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-credentials": {
    /** List MCP credentials (redacted metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: McpCredentialPage;
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
        201: PublicMcpCredential;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-credentials/{credentialId}": {
    /** Revoke the active credential */
    delete: {
      path: { projectId: string; credentialId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicMcpCredential;
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
        200: PublicMcpCredential;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-servers": {
    /** List MCP servers with discovered tool snapshots */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: McpServerPage;
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
        201: PublicMcpServer;
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
        200: McpDiscovery;
        201: McpDiscovery;
      };
    };
  };
  "/v1/projects/{projectId}/mcp-toolsets": {
    /** List toolsets */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: McpToolsetPage;
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
        200: PublicMcpToolset;
        201: PublicMcpToolset;
      };
    };
  };
  "/v1/projects/{projectId}/members": {
    /** List principals with roles and scopes */
    get: {
      path: { projectId: string };
      responses: {
        200: MemberList;
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
        200: PublicMember;
        201: PublicMember;
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
        200: PublicMember;
      };
    };
    /** Remove a member from the organization and its projects */
    delete: {
      path: { projectId: string; memberId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: MemberRemoved;
      };
    };
  };
  "/v1/projects/{projectId}/members/{memberId}/project-access": {
    /** Edge-proxy mode: remove access to this project, keep organization access */
    delete: {
      path: { projectId: string; memberId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: MemberRemoved;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores": {
    /** List memory stores */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string; includeArchived?: "true" | "false" };
      responses: {
        200: MemoryStorePage;
      };
    };
    /** Create a memory store */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        name: string;
        description?: string;
        metadata?: Record<string, string>;
      };
      responses: {
        201: PublicMemoryStore;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores/{storeId}": {
    /** Get a memory store with its size and counts */
    get: {
      path: { projectId: string; storeId: string };
      responses: {
        200: PublicMemoryStore;
      };
    };
    /** Change a store's name, description or metadata */
    patch: {
      path: { projectId: string; storeId: string };
      header: { "Idempotency-Key": string };
      body: {
        name?: string;
        description?: string;
        metadata?: Record<string, string | null>;
      };
      responses: {
        200: PublicMemoryStore;
      };
    };
    /** Delete a memory store with its memories and versions */
    delete: {
      path: { projectId: string; storeId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: MemoryDeleted;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores/{storeId}/archive": {
    /** Archive a memory store (read-only for good) */
    post: {
      path: { projectId: string; storeId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicMemoryStore;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores/{storeId}/memories": {
    /** List memories by path prefix */
    get: {
      path: { projectId: string; storeId: string };
      query: { limit?: string; cursor?: string; pathPrefix?: string; depth?: string; view?: "basic" | "full" };
      responses: {
        200: MemoryListPage;
      };
    };
    /** Create a memory */
    post: {
      path: { projectId: string; storeId: string };
      query: { view?: "basic" | "full" };
      header: { "Idempotency-Key": string };
      body: {
        path: string;
        content: string;
      };
      responses: {
        201: PublicMemory;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores/{storeId}/memories/{memoryId}": {
    /** Get a memory */
    get: {
      path: { projectId: string; storeId: string; memoryId: string };
      query: { view?: "basic" | "full" };
      responses: {
        200: PublicMemory;
      };
    };
    /** Change a memory's content or path, optionally on a content precondition */
    patch: {
      path: { projectId: string; storeId: string; memoryId: string };
      query: { view?: "basic" | "full" };
      header: { "Idempotency-Key": string };
      body: {
        path?: string;
        content?: string;
        precondition?: {
          type: "content_sha256";
          contentSha256: string;
        };
      };
      responses: {
        200: PublicMemory;
      };
    };
    /** Delete a memory (its versions stay), optionally on a content precondition */
    delete: {
      path: { projectId: string; storeId: string; memoryId: string };
      query: { expectedContentSha256?: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: MemoryDeleted;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores/{storeId}/memory-versions": {
    /** List a store's memory versions, newest first */
    get: {
      path: { projectId: string; storeId: string };
      query: { limit?: string; cursor?: string; memoryId?: string; sessionId?: string; operation?: "created" | "modified" | "deleted"; view?: "basic" | "full" };
      responses: {
        200: MemoryVersionPage;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores/{storeId}/memory-versions/{memoryVersionId}": {
    /** Get a memory version */
    get: {
      path: { projectId: string; storeId: string; memoryVersionId: string };
      query: { view?: "basic" | "full" };
      responses: {
        200: PublicMemoryVersion;
      };
    };
  };
  "/v1/projects/{projectId}/memory-stores/{storeId}/memory-versions/{memoryVersionId}/redact": {
    /** Erase a version's content and path for good (its hash and size stay) */
    post: {
      path: { projectId: string; storeId: string; memoryVersionId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicMemoryVersion;
      };
    };
  };
  "/v1/projects/{projectId}/model-catalog": {
    /** A provider's model catalog, fetched from the vendor */
    get: {
      path: { projectId: string };
      query: { providerId: string; search?: string; limit?: string };
      responses: {
        200: ModelCatalog;
      };
    };
  };
  "/v1/projects/{projectId}/model-presets": {
    /** List deployment, project and unavailable legacy presets */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: ModelPresetPage;
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
        prices?: ({
          input: number;
          output: number;
          cacheRead?: number | null;
          cacheWrite?: number | null;
        }) | null;
      };
      responses: {
        201: PublicModelPreset;
      };
    };
  };
  "/v1/projects/{projectId}/model-presets/{presetId}": {
    /** Set a project preset's prices per million tokens (`null`: unpriced); later calls cost at them */
    patch: {
      path: { projectId: string; presetId: string };
      header: { "Idempotency-Key": string };
      body: {
        prices: ({
          input: number;
          output: number;
          cacheRead?: number | null;
          cacheWrite?: number | null;
        }) | null;
      };
      responses: {
        200: PublicModelPreset;
      };
    };
    /** Archive a preset */
    delete: {
      path: { projectId: string; presetId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: ModelPresetArchived;
      };
    };
  };
  "/v1/projects/{projectId}/model-providers": {
    /** List model provider connections (safe metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: ModelProviderPage;
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
        201: PublicModelProvider;
      };
    };
  };
  "/v1/projects/{projectId}/model-providers/{providerId}": {
    /** Remove a connection */
    delete: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: ModelProviderRemoved;
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
        200: PublicModelProvider;
      };
    };
  };
  "/v1/projects/{projectId}/pending-work": {
    /** Unresolved caller tool calls and approvals of the project */
    get: {
      path: { projectId: string };
      responses: {
        200: PendingWork;
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}": {
    /** Read a run */
    get: {
      path: { projectId: string; runId: string };
      responses: {
        200: PublicRun;
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}/cancel": {
    /** Request cancellation (asynchronous) */
    post: {
      path: { projectId: string; runId: string };
      header: { "Idempotency-Key": string };
      responses: {
        202: PublicRun;
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}/messages": {
    /** Page through a run's public messages */
    get: {
      path: { projectId: string; runId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: MessagePage;
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
        202: PublicRun;
      };
    };
  };
  "/v1/projects/{projectId}/runs/{runId}/timeline": {
    /** Page through a run's timing waterfall */
    get: {
      path: { projectId: string; runId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: TimelinePage;
      };
    };
  };
  "/v1/projects/{projectId}/sandbox-providers": {
    /** List sandbox provider connections (safe metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: SandboxProviderPage;
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
        201: PublicSandboxProvider;
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
        200: PublicSandboxProvider;
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
        200: PublicSandboxProvider;
      };
    };
  };
  "/v1/projects/{projectId}/sandbox-providers/{providerId}/snapshots": {
    /** Every snapshot visible to the connection */
    get: {
      path: { projectId: string; providerId: string };
      responses: {
        200: SnapshotList;
      };
    };
  };
  "/v1/projects/{projectId}/schedules": {
    /** List schedules with their next firing times and last firings */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: SchedulePage;
      };
    };
    /** Create a schedule: an agent that runs on a cron expression or an interval, in new sessions or as turns of one session */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        name?: string | null;
        agentId?: string;
        agentVersionId?: string;
        cron?: string;
        intervalSeconds?: number;
        timeZone?: string;
        message: string;
        files?: Array<{
          uploadId: string;
        }>;
        overlap?: "skip" | "buffer_one" | "allow_all";
        catchupWindowSeconds?: number;
        target?: "new_session" | "session";
        sessionId?: string;
        ifBusy?: "enqueue" | "skip";
        memoryStores?: Array<{
          storeId: string;
          access?: "read_write" | "read_only";
          instructions?: string | null;
        }>;
        paused?: boolean;
      };
      responses: {
        201: PublicSchedule;
      };
    };
  };
  "/v1/projects/{projectId}/schedules/{scheduleId}": {
    /** A schedule with its next firing times and last firings */
    get: {
      path: { projectId: string; scheduleId: string };
      responses: {
        200: PublicSchedule;
      };
    };
    /** Change a schedule (its Temporal Schedule follows) */
    patch: {
      path: { projectId: string; scheduleId: string };
      header: { "Idempotency-Key": string };
      body: {
        name?: string | null;
        agentId?: string;
        agentVersionId?: string;
        cron?: string;
        intervalSeconds?: number;
        timeZone?: string;
        message?: string;
        files?: Array<{
          uploadId: string;
        }>;
        overlap?: "skip" | "buffer_one" | "allow_all";
        catchupWindowSeconds?: number;
        target?: "new_session" | "session";
        sessionId?: string;
        ifBusy?: "enqueue" | "skip";
        memoryStores?: Array<{
          storeId: string;
          access?: "read_write" | "read_only";
          instructions?: string | null;
        }>;
      };
      responses: {
        200: PublicSchedule;
      };
    };
    /** Delete a schedule and its Temporal Schedule */
    delete: {
      path: { projectId: string; scheduleId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: ScheduleDeleted;
      };
    };
  };
  "/v1/projects/{projectId}/schedules/{scheduleId}/firings": {
    /** A schedule's firings, newest first */
    get: {
      path: { projectId: string; scheduleId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: ScheduleFiringPage;
      };
    };
  };
  "/v1/projects/{projectId}/schedules/{scheduleId}/pause": {
    /** Pause a schedule: no firings until it is unpaused (a running one finishes) */
    post: {
      path: { projectId: string; scheduleId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicSchedule;
      };
    };
  };
  "/v1/projects/{projectId}/schedules/{scheduleId}/trigger": {
    /** Run a schedule now: one firing at once, even while paused or while another firing runs */
    post: {
      path: { projectId: string; scheduleId: string };
      header: { "Idempotency-Key": string };
      responses: {
        202: ScheduleTriggered;
      };
    };
  };
  "/v1/projects/{projectId}/schedules/{scheduleId}/unpause": {
    /** Unpause a schedule: it fires again from its next time */
    post: {
      path: { projectId: string; scheduleId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicSchedule;
      };
    };
  };
  "/v1/projects/{projectId}/sessions": {
    /** List sessions with status and token counters */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string; agentId?: string; status?: "queued" | "running" | "waiting_for_tool" | "waiting_for_approval" | "retry_scheduled" | "completed" | "failed" | "cancelled" | "timed_out" | "idle"; parentSessionId?: string; root?: "true" | "false"; archived?: "true" | "false"; agentVersionId?: string; order?: "asc" | "desc" };
      responses: {
        200: SessionPage;
      };
    };
    /** Create a session, with its first run when a message or files are given (else idle) */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        agentId?: string;
        agentVersionId?: string;
        title?: string | null;
        initialMessage?: string;
        files?: Array<unknown>;
        anyVersion?: boolean;
        budget?: ({
          maxCost?: number | null;
          maxTokens?: number | null;
        }) | null;
        memoryStores?: Array<{
          storeId: string;
          access?: "read_write" | "read_only";
          instructions?: string | null;
        }>;
      };
      responses: {
        201: CreatedSession;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}": {
    /** Session detail */
    get: {
      path: { projectId: string; sessionId: string };
      responses: {
        200: SessionDetail;
      };
    };
    /** Change a session's title */
    patch: {
      path: { projectId: string; sessionId: string };
      header: { "Idempotency-Key": string };
      body: {
        title?: string | null;
        budget?: ({
          maxCost?: number | null;
          maxTokens?: number | null;
        }) | null;
      };
      responses: {
        200: PublicSessionListItem;
      };
    };
    /** Delete a session: its active run is cancelled, its pending turns withdrawn; every read of it is a 404 from then on */
    delete: {
      path: { projectId: string; sessionId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: SessionDeleted;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/archive": {
    /** Archive a session: its active run is cancelled, its pending turns withdrawn; it stays readable and takes no new turns */
    post: {
      path: { projectId: string; sessionId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicSessionListItem;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/delegations": {
    /** The delegations of a coordinator session */
    get: {
      path: { projectId: string; sessionId: string };
      responses: {
        200: DelegationList;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}": {
    /** One delegation */
    get: {
      path: { projectId: string; sessionId: string; delegationId: string };
      responses: {
        200: PublicDelegation;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}/cancel": {
    /** Cancel a delegation */
    post: {
      path: { projectId: string; sessionId: string; delegationId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicDelegation;
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
        202: DelegationMessageAccepted;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/events": {
    /** One session's product events as server-sent events (its runs, messages, tool calls, approvals, delegations), with `deltas=true` also the model's text as it is written; resumes after `Last-Event-ID` */
    get: {
      path: { projectId: string; sessionId: string };
      query: { once?: "true" | "false"; limit?: string; cursor?: string; from?: "start" | "now"; deltas?: "true" | "false" };
      header: { "Last-Event-ID"?: string };
      responses: {
        200: ReadableStream<Uint8Array>;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/files": {
    /** List the files of the session's latest workspace backup */
    get: {
      path: { projectId: string; sessionId: string };
      responses: {
        200: WorkspaceFileList;
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
  "/v1/projects/{projectId}/sessions/{sessionId}/fork": {
    /** Fork a session from one of its settled runs (a new session with that transcript; idle unless a message or files are given) */
    post: {
      path: { projectId: string; sessionId: string };
      header: { "Idempotency-Key": string };
      body: {
        fromRunId: string;
        agentVersionId?: string;
        title?: string | null;
        initialMessage?: string;
        files?: Array<unknown>;
      };
      responses: {
        201: ForkedSession;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/pending-turns/{turnId}": {
    /** Withdraw a pending turn that has not become a run (a turn another principal queued needs `run:cancel` too) */
    delete: {
      path: { projectId: string; sessionId: string; turnId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PendingTurnWithdrawn;
      };
    };
  };
  "/v1/projects/{projectId}/sessions/{sessionId}/runs": {
    /** Queue a follow-up run (or, with `ifBusy` on a busy session, a pending turn; `interrupt` needs `run:cancel` too) */
    post: {
      path: { projectId: string; sessionId: string };
      header: { "Idempotency-Key": string };
      body: {
        message?: string;
        redactedInput?: string;
        files?: Array<unknown>;
        ifBusy?: "reject" | "enqueue" | "interrupt";
      };
      responses: {
        202: FollowUpAnswer;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts": {
    /** List Skill drafts */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: SkillDraftPage;
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
        201: PublicSkillDraft;
      };
    };
  };
  "/v1/projects/{projectId}/skill-drafts/{draftId}": {
    /** Draft metadata, folders and file bytes */
    get: {
      path: { projectId: string; draftId: string };
      responses: {
        200: PublicSkillDraft;
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
        200: PublicSkillDraft;
      };
    };
    /** Discard a draft */
    delete: {
      path: { projectId: string; draftId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: SkillDraftDiscarded;
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
        200: CreatedDirectory;
        201: CreatedDirectory;
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
        200: DeletedEntry;
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
        200: PutFileResult;
        201: PutFileResult;
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
        201: PublishedSkillDraft;
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
        200: SkillDraftValidation;
      };
    };
  };
  "/v1/projects/{projectId}/skills": {
    /** List Skills with their latest versions */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: SkillPage;
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
        201: SkillDetail;
      };
    };
  };
  "/v1/projects/{projectId}/skills/{skillId}": {
    /** A Skill with all versions and manifests */
    get: {
      path: { projectId: string; skillId: string };
      responses: {
        200: SkillDetail;
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
        200: SkillEnablement;
      };
    };
    /** Remove a Skill */
    delete: {
      path: { projectId: string; skillId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: SkillDeleted;
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
        201: PublicSkillVersion;
      };
    };
  };
  "/v1/projects/{projectId}/skills/{skillId}/versions/{versionId}/export": {
    /** Exact instructions and resource bytes of a version */
    get: {
      path: { projectId: string; skillId: string; versionId: string };
      responses: {
        200: SkillVersionExport;
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
        200: PublicSkillVersion;
      };
    };
  };
  "/v1/projects/{projectId}/storage-providers": {
    /** List object-storage connections (safe metadata) */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: StorageProviderPage;
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
        201: PublicStorageProvider;
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
        200: PublicStorageProvider;
      };
    };
  };
  "/v1/projects/{projectId}/storage-providers/{providerId}/default": {
    /** Make the connection the organization default */
    put: {
      path: { projectId: string; providerId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: PublicStorageProvider;
      };
    };
  };
  "/v1/projects/{projectId}/storage-providers/{providerId}/objects": {
    /** One folder level of stored objects */
    get: {
      path: { projectId: string; providerId: string };
      query: { prefix?: string; cursor?: string; limit?: string };
      responses: {
        200: StoredObjectListing;
      };
    };
  };
  "/v1/projects/{projectId}/tool-calls": {
    /** List the tool calls of a run */
    get: {
      path: { projectId: string };
      query: { runId: string; limit?: string; cursor?: string };
      responses: {
        200: ToolCallPage;
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
        200: ToolCallClaim;
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
        200: PublicToolCall;
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
        200: PublicToolCall;
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
        202: ToolResultSubmission;
      };
    };
  };
  "/v1/projects/{projectId}/uploads": {
    /** Upload a file for later turns (one file input item) */
    post: {
      path: { projectId: string };
      header: { "Idempotency-Key": string };
      body: {
        name: string;
        contentType: string;
        dataBase64: string;
        expiresInSeconds?: number;
      };
      responses: {
        201: PublicUpload;
      };
    };
    /** List the project's uploads, newest first */
    get: {
      path: { projectId: string };
      query: { limit?: string; cursor?: string };
      responses: {
        200: UploadPage;
      };
    };
  };
  "/v1/projects/{projectId}/uploads/{uploadId}": {
    /** An upload's metadata */
    get: {
      path: { projectId: string; uploadId: string };
      responses: {
        200: PublicUpload;
      };
    };
    /** Delete an upload (turns that attached it keep their copy) */
    delete: {
      path: { projectId: string; uploadId: string };
      header: { "Idempotency-Key": string };
      responses: {
        200: UploadDeleted;
      };
    };
  };
  "/v1/projects/{projectId}/uploads/{uploadId}/content": {
    /** Download an upload's bytes (checked against its SHA-256 first) */
    get: {
      path: { projectId: string; uploadId: string };
      responses: {
        200: ReadableStream<Uint8Array>;
      };
    };
  };
  "/v1/projects/{projectId}/usage": {
    /** Usage and cost over UTC days `from` through `to` (default: this month), grouped by `day`, `agent`, `preset` or `apiKey` */
    get: {
      path: { projectId: string };
      query: { from?: string; to?: string; groupBy?: "day" | "agent" | "preset" | "apiKey" };
      responses: {
        200: UsageLedger;
      };
    };
  };
};
