// The verbs and read models of access/organizations/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { getOrganization } from './get.ts';
export { listOrganizations } from './list.ts';
