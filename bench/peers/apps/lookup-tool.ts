// Our service's `lookup` for the two-turn peer agent: a platform tool the worker runs in process
// (SVC_PLATFORM_TOOL_MODULES), the counterpart of the peers' in-process tool functions.
export const tools = [
  {
    name: 'lookup',
    description: 'Looks up a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    async handler(input: { city: string }) {
      return { city: input.city, population: 2_100_000 };
    },
  },
];
