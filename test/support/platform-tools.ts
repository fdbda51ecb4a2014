import type { PlatformToolHandler } from '../../activities/platform-tools/registry.ts';

/** `add_numbers`, the platform tool definition run tests publish (the handler is per test). */
export const addNumbersTool = {
  name: 'add_numbers',
  description: 'Adds two numbers',
  owner: 'platform',
  approval: 'never',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
};

/** `lookup_order`, a caller-owned tool: the run waits for an integration to claim and answer it. */
export const lookupOrderTool = {
  name: 'lookup_order',
  description: 'Looks up an order',
  owner: 'caller',
  approval: 'never',
  inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};

/** A worker handler for `add_numbers`: the sum of `a` and `b`. */
export const addNumbersHandler: PlatformToolHandler = async ({ arguments: args }) => {
  const { a, b } = args as { a: number; b: number };
  return { status: 'success', value: { sum: a + b } };
};
