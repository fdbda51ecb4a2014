/**
 * `npm run bench`: every benchmark, each figure printed beside its baseline measured in the same
 * run, with the ratio and its target. Exits 1 when a target is missed, so a regression is loud.
 */
import { run as agentProtocols } from './agent-protocols.bench.ts';
import { run as anthropicCompat } from './anthropic-compat.bench.ts';
import { run as configurationBackup } from './configuration-backup.bench.ts';
import { run as conversationControl } from './conversation-control.bench.ts';
import { run as delegation } from './delegation.bench.ts';
import { run as eventAppend } from './event-append.bench.ts';
import { run as idempotencyReplay } from './idempotency-replay.bench.ts';
import { run as liveOutput } from './live-output.bench.ts';
import { run as longConversation } from './long-conversation.bench.ts';
import { run as mcpCall } from './mcp-call.bench.ts';
import { run as memoryListing } from './memory.bench.ts';
import { run as memoryMount } from './memory-mount.bench.ts';
import { run as retentionPurge } from './retention-purge.bench.ts';
import { run as runEngine } from './run-engine.bench.ts';
import { run as runPath } from './run-path.bench.ts';
import { run as scale } from './scale.bench.ts';
import { run as sseFanout } from './sse-fanout.bench.ts';
import { run as usageBudgets } from './usage-budgets.bench.ts';
import { run as webhookDelivery } from './webhook-delivery.bench.ts';
import { printRecords, type BenchRecord } from './support.ts';

const benches: Array<[string, () => Promise<BenchRecord[]>]> = [
  ['event appends', () => eventAppend()],
  ['SSE fan-out', () => sseFanout()],
  ['idempotent replay', () => idempotencyReplay()],
  ['run engine', () => runEngine()],
  ['run path against Restate', () => runPath()],
  ['webhook delivery', () => webhookDelivery()],
  ['MCP tool calls', () => mcpCall()],
  ['delegation', () => delegation()],
  ['configuration backup and restore', () => configurationBackup()],
  ['live output', () => liveOutput()],
  ['conversation control', () => conversationControl()],
  ['Anthropic-compatible API', () => anthropicCompat()],
  ['retention purge', () => retentionPurge()],
  ['budgets and the usage ledger', () => usageBudgets()],
  ['long conversations', () => longConversation()],
  ['memory listing by prefix', () => memoryListing()],
  ['memory mount in the sandbox', () => memoryMount()],
  ['A2A and MCP doors', () => agentProtocols()],
  ['costs that grow with the work', () => scale()],
];

let missed = 0;
for (const [name, bench] of benches) {
  console.log(`\n# ${name}`);
  const records = await bench();
  printRecords(records);
  missed += records.filter((r) => (r.better === 'higher' ? r.ratio < r.target : r.ratio > r.target)).length;
}
console.log(missed === 0 ? '\nAll targets met.' : `\n${missed} target(s) missed.`);
process.exit(missed === 0 ? 0 : 1);
