// The LangGraph peer: two prebuilt ReAct agents (one without tools, one with `lookup`) served by
// the LangGraph.js agent server (`langgraphjs dev`, langgraph.json beside this file), with
// ChatOpenAI pointed at the instant model through MODEL_BASE_URL and MODEL_API_KEY.
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

const llm = new ChatOpenAI({ model: 'gpt-5.1', apiKey: process.env.MODEL_API_KEY, configuration: { baseURL: process.env.MODEL_BASE_URL }, maxRetries: 2 });
const lookup = tool(async ({ city }) => JSON.stringify({ city, population: 2_100_000 }), {
  name: 'lookup',
  description: 'Looks up a city.',
  schema: z.object({ city: z.string() }),
});

export const plain = createReactAgent({ llm, tools: [], prompt: 'You are a helpful assistant.' });
export const withTool = createReactAgent({ llm, tools: [lookup], prompt: 'You are a helpful assistant.' });
