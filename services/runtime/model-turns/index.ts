// The verbs and read models of runtime/model-turns/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { beginModelTurn } from './begin.ts';
export { finishFinalTurn } from './finish-final.ts';
export { finishModelTurn } from './finish.ts';
export { loadTurnContext } from './turn-context.ts';
