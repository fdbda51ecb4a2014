import { useState, type FormEvent } from 'react';
import type { SessionDetail } from '../../../client/src/index.ts';
import { useSigned } from '../session.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';
import { describeBudget } from './money.ts';
import { useAction } from './useAction.ts';
import { useCan } from './useCan.ts';

/**
 * A session's budget, and a change to it: the new limits replace the old (an empty field is no
 * limit of that kind; both empty remove the budget). A run that failed `budget_exceeded` is
 * continued by raising it and sending a follow-up.
 */
export function SessionBudget({ session, onChanged }: { session: SessionDetail; onChanged: () => void }) {
  const { client, context } = useSigned();
  const can = useCan();
  const [editing, setEditing] = useState(false);
  const [cost, setCost] = useState(session.budget?.maxCost?.toString() ?? '');
  const [tokens, setTokens] = useState(session.budget?.maxTokens?.toString() ?? '');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const budget = { ...(cost ? { maxCost: Number(cost) } : {}), ...(tokens ? { maxTokens: Number(tokens) } : {}) };
    void run(async () => {
      await client.call('patch', '/v1/projects/{projectId}/sessions/{sessionId}', {
        path: { sessionId: session.id },
        body: { budget: Object.keys(budget).length ? budget : null },
      });
      setEditing(false);
      onChanged();
    });
  };
  const shown = describeBudget(session.budget && { cost: session.budget.maxCost, tokens: session.budget.maxTokens }, context.currency);
  return (
    <>
      {shown}{' '}
      {can('session:write') && !editing ? (
        <button type="button" className="link small" onClick={() => setEditing(true)}>
          Change budget
        </button>
      ) : null}
      {editing ? (
        <form onSubmit={submit} aria-label="Session budget">
          <div className="row">
            <label>
              Max cost <span className="muted small">(empty: no limit)</span>
              <input type="number" name="maxCost" min="0" step="any" value={cost} onChange={(event) => setCost(event.target.value)} />
            </label>
            <label>
              Max tokens <span className="muted small">(input plus output)</span>
              <input type="number" name="maxTokens" min="1" step="1" value={tokens} onChange={(event) => setTokens(event.target.value)} />
            </label>
          </div>
          <ErrorNotice error={error} />
          <div className="actions-row">
            <button type="submit" disabled={busy} aria-busy={busy}>
              {busy ? 'Saving…' : 'Save budget'}
            </button>
            <button type="button" className="link" onClick={() => setEditing(false)}>
              Close
            </button>
          </div>
        </form>
      ) : null}
    </>
  );
}
