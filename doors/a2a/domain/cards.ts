import type { AgentCard } from '@a2a-js/sdk';

/** The protocol version this server speaks (`A2A-Version`); an absent header means 0.3, which it does not. */
export const A2A_VERSION = '1.0';

/** The scheme name the cards give our API keys. */
const API_KEY_SCHEME = 'apiKey';

/** What a card says of an agent. */
export type CardAgent = { id: string; key: string; name: string; description: string; version: number };

/**
 * An agent's Agent Card (A2A 1.0 §8): both bindings at one URL (JSON-RPC is a `POST` to it, the
 * HTTP+JSON resources hang below it), streaming on, push notifications off, one skill drawn from
 * the agent's description, and bearer API keys as the one security scheme.
 */
export function agentCardOf(agent: CardAgent, endpoint: string): AgentCard {
  const summary = agent.description.trim() || `The agent ${agent.name}`;
  return {
    name: agent.name,
    description: summary,
    supportedInterfaces: [
      { url: endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_VERSION },
      { url: endpoint, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_VERSION },
    ],
    provider: { organization: 'agent runtime service', url: new URL(endpoint).origin },
    version: String(agent.version),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [API_KEY_SCHEME]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { scheme: 'Bearer', bearerFormat: 'API key (svc_…)', description: 'An API key of this server, as "Authorization: Bearer svc_…"' },
        },
      },
    },
    securityRequirements: [{ schemes: { [API_KEY_SCHEME]: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: agent.key,
        name: agent.name,
        description: summary,
        tags: ['agent'],
        examples: [],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/**
 * `A2A-Version` as spec 1.0 §3.6 reads it: absent means 0.3; a version of another major, or a
 * later minor, is not served. Returns the problem, or null when the version is served.
 */
export function versionProblem(header: string | undefined): string | null {
  const requested = header?.trim() || '0.3';
  const [major, minor = '0'] = requested.split('.');
  if (major === '1' && minor === '0') return null;
  return `The requested A2A protocol version '${requested}' is not supported. Supported versions: ${A2A_VERSION}`;
}
