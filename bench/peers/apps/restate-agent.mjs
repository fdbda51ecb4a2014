// The Restate peer: one durable service handler running the same agent loop as the others.
// Every model call and tool call is journaled with ctx.run, so a crashed handler resumes from
// its journal on the next attempt. Started by bench/peers/restate.ts with PORT, MODEL_BASE_URL
// and MODEL_API_KEY; runs from .peers/apps with .peers/node_modules.
import * as restate from '@restatedev/restate-sdk';

const MODEL_BASE_URL = process.env.MODEL_BASE_URL;
const MODEL_API_KEY = process.env.MODEL_API_KEY;
const LOOKUP = {
  type: 'function',
  function: { name: 'lookup', description: 'Looks up a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

async function callModel(messages, withTools) {
  const response = await fetch(`${MODEL_BASE_URL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${MODEL_API_KEY}` },
    body: JSON.stringify({ model: 'gpt-5.1', messages, ...(withTools ? { tools: [LOOKUP] } : {}) }),
  });
  if (!response.ok) throw new Error(`model answered ${response.status}`);
  return (await response.json()).choices[0].message;
}

const agent = restate.service({
  name: 'agent',
  handlers: {
    run: async (ctx, request) => {
      const messages = [
        { role: 'system', content: request.system },
        { role: 'user', content: request.message },
      ];
      for (let turn = 1; turn <= 4; turn++) {
        const reply = await ctx.run(`model ${turn}`, () => callModel(messages, request.tools === true));
        messages.push(reply);
        if (!reply.tool_calls?.length) return { text: reply.content, turns: turn };
        for (const call of reply.tool_calls) {
          const args = JSON.parse(call.function.arguments);
          const result = await ctx.run(`tool ${call.id}`, async () => ({ city: args.city, population: 2_100_000 }));
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
        }
      }
      throw new restate.TerminalError('turn limit');
    },
  },
});

restate.serve({ services: [agent], port: Number(process.env.PORT) });
