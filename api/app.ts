import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { developmentAuthProvider } from './auth/development.ts';
import { edgeProxyAuthProvider } from './auth/edge-proxy.ts';
import { hostedAuthProvider } from './auth/hosted.ts';
import type { AuthProvider } from './auth/provider.ts';
import type { AppDeps } from './deps.ts';
import type { AppEnv } from './env.ts';
import { handleError, handleNotFound, renderError } from './errors.ts';
import { authenticate } from './middleware/auth.ts';
import { idempotency } from './middleware/idempotency.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { requestId } from './middleware/request-id.ts';
import { traceRequest } from './middleware/tracing.ts';
import { requestLog } from './middleware/request-log.ts';
import { agentRoutes } from './routes/agents.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { contextRoutes } from './routes/context.ts';
import { eventRoutes } from './routes/events.ts';
import { eventWebhookRoutes } from './routes/event-webhooks.ts';
import { mcpCredentialPolicyRoutes } from './routes/mcp-credential-policies.ts';
import { mcpCredentialRoutes } from './routes/mcp-credentials.ts';
import { mcpServerRoutes } from './routes/mcp-servers.ts';
import { mcpToolsetRoutes } from './routes/mcp-toolsets.ts';
import { delegationRoutes } from './routes/delegations.ts';
import { memberRoutes } from './routes/members.ts';
import { memoryStoreRoutes } from './routes/memory-stores.ts';
import { configurationBackupRoutes } from './routes/configuration-backup.ts';
import { modelCatalogRoutes } from './routes/model-catalog.ts';
import { modelPresetRoutes } from './routes/model-presets.ts';
import { modelProviderRoutes } from './routes/model-providers.ts';
import { organizationRoutes } from './routes/organizations.ts';
import { projectRoutes } from './routes/projects.ts';
import { usageRoutes } from './routes/usage.ts';
import { runRoutes } from './routes/runs.ts';
import { sandboxProviderRoutes } from './routes/sandbox-providers.ts';
import { scheduleRoutes } from './routes/schedules.ts';
import { sessionFileRoutes } from './routes/session-files.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { skillDraftRoutes } from './routes/skill-drafts.ts';
import { storageProviderRoutes } from './routes/storage-providers.ts';
import { skillRoutes } from './routes/skills.ts';
import { toolCallRoutes } from './routes/tool-calls.ts';
import { healthRoutes } from './routes/health.ts';
import { lazyOpenApiDocument, openApiRoutes } from './routes/openapi.ts';
import { consoleRoutes } from '../console/routes.ts';

// Hard ceiling for any request body; routes apply their own smaller limits when they parse.
const MAX_REQUEST_BYTES = 40 * 1024 * 1024;

function authProviderFor(deps: AppDeps): AuthProvider {
  switch (deps.settings.authMode) {
    case 'development':
      return developmentAuthProvider(deps);
    case 'edge_proxy':
      return edgeProxyAuthProvider(deps);
    case 'hosted':
      return hostedAuthProvider(deps);
  }
}

/**
 * The API composition root. Middleware order is fixed: trace span → request id → request log → body limit →
 * auth → rate limits → idempotency → routes. Every resource is mounted in the one list below;
 * a vendor-compatible API (`deps.facades`, e.g. compat/anthropic/) brings its own auth and errors.
 */
export function createApp(deps: AppDeps) {
  const provider = authProviderFor(deps);
  const app = new Hono<AppEnv>();
  // The request's span first, so everything after (the workflow a new run starts) is inside it.
  app.use(traceRequest());
  app.use(requestId(deps.logger));
  app.use(requestLog());
  app.onError(handleError);
  app.notFound(handleNotFound);

  app.route('/', healthRoutes(deps.readiness));
  for (const facade of deps.facades ?? []) app.route(facade.path, facade.routes(deps));
  const openApiDocument = lazyOpenApiDocument(() => app.routes);
  app.route('/', consoleRoutes(openApiDocument));

  const v1 = new Hono<AppEnv>();
  v1.use(async (c, next) => {
    c.set('checkResponses', deps.settings.checkResponses);
    await next();
  });
  v1.use(bodyLimit({ maxSize: MAX_REQUEST_BYTES, onError: (c) => renderError(c, 'bad_request', 'The request body is too large') }));
  v1.use(authenticate(deps, provider));
  v1.use(rateLimit(deps.settings.limits, deps.clock));
  v1.use(idempotency());
  v1.route('/', openApiRoutes(openApiDocument));
  v1.route('/auth', provider.routes);
  v1.route('/', contextRoutes(deps));
  v1.route('/', organizationRoutes());
  v1.route('/', configurationBackupRoutes(deps));
  v1.route('/', projectRoutes(deps));
  v1.route('/', usageRoutes(deps));
  v1.route('/', memberRoutes(deps));
  v1.route('/', apiKeyRoutes(deps));
  v1.route('/', eventRoutes(deps));
  v1.route('/', eventWebhookRoutes(deps));
  v1.route('/', skillRoutes());
  v1.route('/', skillDraftRoutes());
  v1.route('/', memoryStoreRoutes());
  v1.route('/', modelProviderRoutes(deps));
  v1.route('/', modelCatalogRoutes(deps));
  v1.route('/', modelPresetRoutes(deps));
  v1.route('/', sandboxProviderRoutes(deps));
  v1.route('/', storageProviderRoutes(deps));
  v1.route('/', delegationRoutes(deps));
  v1.route('/', mcpServerRoutes(deps));
  v1.route('/', mcpCredentialRoutes(deps));
  v1.route('/', mcpCredentialPolicyRoutes(deps));
  v1.route('/', mcpToolsetRoutes());
  v1.route('/', agentRoutes(deps));
  v1.route('/', sessionRoutes(deps));
  v1.route('/', sessionFileRoutes(deps));
  v1.route('/', uploadRoutes(deps));
  v1.route('/', runRoutes(deps));
  v1.route('/', toolCallRoutes(deps));
  v1.route('/', approvalRoutes(deps));
  v1.route('/', scheduleRoutes(deps));
  app.route('/v1', v1);
  return app;
}

export type App = ReturnType<typeof createApp>;
