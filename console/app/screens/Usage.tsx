import { useState, type FormEvent } from 'react';
import type { UsageGroup, UsageLedger } from '../../../client/src/index.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatCost, formatTokens } from '../components/money.ts';
import { ProjectBudgetCard } from '../components/ProjectBudgetCard.tsx';
import { UsageChart, type ChartMetric } from '../components/UsageChart.tsx';
import { useCan } from '../components/useCan.ts';
import { useResource } from '../components/useResource.ts';
import { useSigned } from '../session.tsx';

type GroupBy = UsageLedger['groupBy'];
const GROUPS: Array<{ value: GroupBy; label: string }> = [
  { value: 'day', label: 'Day' },
  { value: 'agent', label: 'Agent' },
  { value: 'preset', label: 'Model preset' },
  { value: 'apiKey', label: 'API key' },
];

/** UTC days, as the ledger counts them: this month so far by default. */
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The project's usage ledger: runs, model calls, tokens and cost over a range of UTC days, a
 * bar per day, the totals, and a table grouped by day, agent, preset or API key; with the
 * project's monthly budget beside it.
 */
export function UsageScreen() {
  const can = useCan();
  if (!can('usage:read')) {
    return (
      <section>
        <h1>Usage</h1>
        <p className="empty">
          Reading usage and cost needs the <code>usage:read</code> scope.
        </p>
      </section>
    );
  }
  return <Ledger />;
}

function Ledger() {
  const { client } = useSigned();
  const can = useCan();
  const [range, setRange] = useState({ from: `${today().slice(0, 7)}-01`, to: today() });
  const [draft, setDraft] = useState(range);
  const [groupBy, setGroupBy] = useState<GroupBy>('day');
  const [metric, setMetric] = useState<ChartMetric>('cost');
  const ledger = (by: GroupBy) => client.call('get', '/v1/projects/{projectId}/usage', { query: { ...range, groupBy: by } });
  const days = useResource(() => ledger('day'), [client, range]);
  const grouped = useResource(() => (groupBy === 'day' ? Promise.resolve(null) : ledger(groupBy)), [client, range, groupBy]);
  const names = useResource(() => namesOf(groupBy, can('project:admin')), [client, groupBy]);
  const show = (event: FormEvent) => {
    event.preventDefault();
    setRange(draft);
  };
  const data = days.data;
  const table = groupBy === 'day' ? data : grouped.data;
  return (
    <section>
      <h1>Usage</h1>
      <form className="toolbar" onSubmit={show} aria-label="Usage range">
        <label>
          From
          <input type="date" name="from" value={draft.from} max={draft.to} onChange={(event) => setDraft({ ...draft, from: event.target.value })} required />
        </label>
        <label>
          To
          <input type="date" name="to" value={draft.to} min={draft.from} onChange={(event) => setDraft({ ...draft, to: event.target.value })} required />
        </label>
        <button type="submit">Show</button>
        <label>
          Group by
          <select name="groupBy" value={groupBy} onChange={(event) => setGroupBy(event.target.value as GroupBy)}>
            {GROUPS.map((group) => (
              <option key={group.value} value={group.value}>
                {group.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Chart
          <select name="metric" value={metric} onChange={(event) => setMetric(event.target.value as ChartMetric)}>
            <option value="cost">Cost per day</option>
            <option value="tokens">Tokens per day</option>
          </select>
        </label>
      </form>
      <ErrorNotice error={days.error ?? grouped.error} />
      {data ? (
        <>
          <p className="muted small">
            UTC days {data.from} to {data.to}; amounts in {data.currency}. A run counts on the day of its first model call.
          </p>
          <Totals ledger={data} />
          <UsageChart days={data.groups} metric={metric} currency={data.currency} />
        </>
      ) : days.loading ? (
        <p aria-busy="true">Loading usage…</p>
      ) : null}
      {table ? (
        <GroupTable ledger={table} label={labelOf(table.groupBy, names.data ?? new Map())} />
      ) : grouped.loading ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      <ProjectBudgetCard />
    </section>
  );

  /** Names for ids the ledger groups by: agents by name; API keys by name where the principal may list them. */
  async function namesOf(by: GroupBy, mayListKeys: boolean): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    if (by === 'agent') for await (const agent of client.list('/agents', { limit: 100 })) names.set(agent.id, agent.name);
    if (by === 'apiKey' && mayListKeys) for await (const key of client.list('/api-keys', { limit: 100 })) names.set(key.id, key.name);
    return names;
  }
}

/** What a group's key reads as: a name where one is known, else the id's start. */
function labelOf(groupBy: GroupBy, names: Map<string, string>) {
  return (group: UsageGroup) => {
    if (group.key === null) return groupBy === 'apiKey' ? 'No API key (the console)' : '(none)';
    if (groupBy === 'day' || groupBy === 'preset') return group.key;
    return names.get(group.key) ?? group.key.slice(0, 8);
  };
}

function Totals({ ledger }: { ledger: UsageLedger }) {
  const { totals } = ledger;
  const figures: Array<[string, string]> = [
    ['Cost', formatCost(totals.cost, ledger.currency)],
    ['Runs', formatTokens(totals.runs)],
    ['Model calls', formatTokens(totals.invocations)],
    ['Tokens in', formatTokens(totals.inputTokens)],
    ['Tokens out', formatTokens(totals.outputTokens)],
    ['Cache read', formatTokens(totals.cacheReadTokens)],
    ['Cache write', formatTokens(totals.cacheWriteTokens)],
  ];
  return (
    <dl className="figures">
      {figures.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function GroupTable({ ledger, label }: { ledger: UsageLedger; label: (group: UsageGroup) => string }) {
  const title = GROUPS.find((group) => group.value === ledger.groupBy)!.label;
  const cells = (entry: Omit<UsageGroup, 'key'>) =>
    [entry.runs, entry.invocations, entry.inputTokens, entry.outputTokens, entry.cacheReadTokens, entry.cacheWriteTokens].map((value, index) => (
      <td key={index} className="number">
        {formatTokens(value)}
      </td>
    ));
  return (
    <table aria-label={`Usage by ${title.toLowerCase()}`}>
      <thead>
        <tr>
          <th scope="col">{title}</th>
          {['Runs', 'Model calls', 'Tokens in', 'Tokens out', 'Cache read', 'Cache write', `Cost (${ledger.currency})`].map((column) => (
            <th key={column} scope="col" className="number">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {ledger.groups.length === 0 ? (
          <tr>
            <td colSpan={8} className="muted">
              No model calls in this range.
            </td>
          </tr>
        ) : (
          ledger.groups.map((group) => (
            <tr key={group.key ?? 'none'}>
              <th scope="row">{label(group)}</th>
              {cells(group)}
              <td className="number">{formatCost(group.cost)}</td>
            </tr>
          ))
        )}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          {cells(ledger.totals)}
          <td className="number">{formatCost(ledger.totals.cost)}</td>
        </tr>
      </tfoot>
    </table>
  );
}
