import { useState, type FormEvent } from 'react';
import { useSigned } from '../session.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';
import { describeBudget, formatCost, formatTokens } from './money.ts';
import { useAction } from './useAction.ts';
import { useCan } from './useCan.ts';
import { useResource } from './useResource.ts';

const share = (spent: number, limit: number) => `${Math.min(100, Math.round((spent / limit) * 100))}%`;

/**
 * The project's monthly budget (UTC calendar month) against this month's spend, which the
 * ledger's default range is: tokens count input plus output, as the budget check does. A run
 * that would start a model call past it fails `budget_exceeded`. Project admins change it here.
 */
export function ProjectBudgetCard() {
  const { client, context, reloadContext } = useSigned();
  const can = useCan();
  const month = useResource(() => client.call('get', '/v1/projects/{projectId}/usage', { query: {} }), [client]);
  const budget = context.project.budget;
  const spent = month.data?.totals;
  const currency = month.data?.currency;
  return (
    <section className="card" aria-label="Monthly budget">
      <h2>Monthly budget</h2>
      <p>{describeBudget(budget && { cost: budget.maxMonthlyCost, tokens: budget.maxMonthlyTokens }, currency)}</p>
      {spent ? (
        <p className="muted">
          This month so far: {formatCost(spent.cost, currency)}
          {budget?.maxMonthlyCost ? ` (${share(spent.cost, budget.maxMonthlyCost)} of the budget)` : ''} ·{' '}
          {formatTokens(spent.inputTokens + spent.outputTokens)} tokens
          {budget?.maxMonthlyTokens ? ` (${share(spent.inputTokens + spent.outputTokens, budget.maxMonthlyTokens)} of the budget)` : ''}
        </p>
      ) : null}
      <ErrorNotice error={month.error} />
      {can('project:admin') ? <BudgetForm current={budget} onSaved={async () => (await reloadContext(), await month.reload())} /> : null}
    </section>
  );
}

function BudgetForm({
  current,
  onSaved,
}: {
  current: { maxMonthlyCost: number | null; maxMonthlyTokens: number | null } | null;
  onSaved: () => Promise<unknown>;
}) {
  const { client } = useSigned();
  const [cost, setCost] = useState(current?.maxMonthlyCost?.toString() ?? '');
  const [tokens, setTokens] = useState(current?.maxMonthlyTokens?.toString() ?? '');
  const { busy, error, run } = useAction();
  const save = (budget: { maxMonthlyCost?: number; maxMonthlyTokens?: number } | null) =>
    run(async () => {
      await client.call('patch', '/v1/projects/{projectId}', { body: { budget } });
      if (!budget) {
        setCost('');
        setTokens('');
      }
      await onSaved();
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // An empty field sets no limit of that kind; both empty removes the budget.
    const budget = { ...(cost ? { maxMonthlyCost: Number(cost) } : {}), ...(tokens ? { maxMonthlyTokens: Number(tokens) } : {}) };
    void save(Object.keys(budget).length ? budget : null);
  };
  return (
    <form onSubmit={submit} aria-label="Change the monthly budget">
      <div className="row">
        <label>
          Max cost per month <span className="muted small">(empty: no limit)</span>
          <input type="number" name="maxMonthlyCost" min="0" step="any" value={cost} onChange={(event) => setCost(event.target.value)} />
        </label>
        <label>
          Max tokens per month <span className="muted small">(input plus output)</span>
          <input type="number" name="maxMonthlyTokens" min="1" step="1" value={tokens} onChange={(event) => setTokens(event.target.value)} />
        </label>
      </div>
      <ErrorNotice error={error} />
      <div className="actions-row">
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? 'Saving…' : 'Save budget'}
        </button>
        {current ? (
          <button type="button" className="danger" disabled={busy} onClick={() => void save(null)}>
            Remove budget
          </button>
        ) : null}
      </div>
    </form>
  );
}
