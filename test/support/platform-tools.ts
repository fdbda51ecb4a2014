/** `add_numbers`, the platform tool definition run tests publish (the handler is per test). */
export const addNumbersTool = {
  name: 'add_numbers',
  description: 'Adds two numbers',
  owner: 'platform',
  approval: 'never',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
};
