// The verbs and read models of access/projects/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { agentProtocolsOfProject } from './agent-protocols.ts';
export { assertOrganizationAdministrator } from './authorize.ts';
export { createProject } from './create.ts';
export { deleteProject } from './delete.ts';
export { getProject, projectCreatedAt } from './get.ts';
export { listProjects } from './list.ts';
export { retentionResponse, toOrganizationResponse, toProjectResponse } from './public.ts';
export type { AgentProtocols, PublicOrganization } from './public.ts';
export { updateProject } from './update.ts';
