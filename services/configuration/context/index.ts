// The verbs and read models of configuration/context/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { getContext } from './get-context.ts';
