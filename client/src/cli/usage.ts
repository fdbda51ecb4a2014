import type { UsageGroup, UsageLedger } from '../api-types.ts';
import type { ProjectClient } from '../index.ts';
import { clientOf, optionalChoice, optionalOption, print, type Command } from './command-context.ts';
import { amount, count, table } from './format.ts';

const GROUPS = ['day', 'agent', 'preset', 'apiKey'] as const;

/**
 * What a group's key means to people: an agent's key for its id (the ledger groups by id, which
 * stays put when an agent is renamed), "(no API key)" for runs people started in the console.
 */
async function labelsOf(client: ProjectClient, ledger: UsageLedger): Promise<(group: UsageGroup) => string> {
  if (ledger.groupBy === 'agent') {
    const keys = new Map<string, string>();
    for await (const agent of client.list('/agents', { limit: 100 })) keys.set(agent.id, agent.key);
    return (group) => (group.key ? (keys.get(group.key) ?? group.key) : '(none)');
  }
  if (ledger.groupBy === 'apiKey') return (group) => group.key ?? '(no API key)';
  return (group) => group.key ?? '(none)';
}

/** The ledger as a table: one line per group, then the totals, the cost in the installation's currency. */
export function describeLedger(ledger: UsageLedger, label: (group: UsageGroup) => string): string {
  const figures = (entry: Omit<UsageGroup, 'key'>) => [
    count(entry.runs),
    count(entry.invocations),
    count(entry.inputTokens),
    count(entry.outputTokens),
    count(entry.cacheReadTokens),
    count(entry.cacheWriteTokens),
    amount(entry.cost),
  ];
  const header = [ledger.groupBy, 'runs', 'model calls', 'tokens in', 'tokens out', 'cache read', 'cache write', `cost (${ledger.currency})`];
  const rows = [...ledger.groups.map((group) => [label(group), ...figures(group)]), ['total', ...figures(ledger.totals)]];
  return `usage ${ledger.from} to ${ledger.to}, by ${ledger.groupBy}\n${table(header, rows)}`;
}

export const USAGE_COMMANDS: Record<string, Command> = {
  /** `svc usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--group-by day|agent|preset|apiKey]`: the project's usage ledger. */
  usage: {
    async run(context) {
      const client = clientOf(context);
      const from = optionalOption(context, 'from');
      const to = optionalOption(context, 'to');
      const groupBy = optionalChoice(context, 'group-by', GROUPS);
      const ledger = await client.call('get', '/v1/projects/{projectId}/usage', {
        query: { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(groupBy ? { groupBy } : {}) },
      });
      const label = context.options.json ? () => '' : await labelsOf(client, ledger);
      print(context, ledger, () => describeLedger(ledger, label));
      return 0;
    },
  },
};
