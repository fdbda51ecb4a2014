// The verbs and read models of configuration/agents/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createAgent } from './create.ts';
export { deleteAgent } from './delete.ts';
export { getAgent } from './get.ts';
export { listAgentVersions } from './list-versions.ts';
export { listAgents } from './list.ts';
export type { PublicationDeps } from './prepare-version.ts';
export type { PublicAgent, PublicAgentVersion } from './public.ts';
export { publishAgentVersion } from './publish-version.ts';
export { getAgentIncludingArchived, listAgentsIncludingArchived } from './read-including-archived.ts';
export { agentVersionIdByNumber, readAgentVersion } from './read-version.ts';
