import { ApprovalActions } from '../components/ApprovalActions.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useLiveEvents } from '../components/useLiveEvents.ts';
import { useResource } from '../components/useResource.ts';
import { Link } from '../router.tsx';
import { useSigned } from '../session.tsx';

/** Work waiting on people (approvals) or on integrations (caller tool calls), across the project, live. */
export function PendingWorkScreen() {
  const { client } = useSigned();
  const work = useResource(() => client.call('get', '/v1/projects/{projectId}/pending-work', {}), [client]);
  useLiveEvents(
    client,
    (event) => event.kind.startsWith('approval.') || event.kind.startsWith('tool_call.'),
    () => void work.refresh(),
  );
  return (
    <section>
      <h1>Pending work</h1>
      <ErrorNotice error={work.error} />
      {work.data ? (
        <>
          <h2>Approvals</h2>
          {work.data.approvals.length === 0 ? (
            <p className="empty">
              No approvals are waiting. Tools with <code>approval: always</code> ask here before they run.
            </p>
          ) : null}
          {work.data.approvals.map((approval) => (
            <div className="card" key={approval.id}>
              <p>
                <strong>{approval.toolName}</strong> in <Link to={`/sessions/${approval.sessionId}`}>session {approval.sessionId.slice(0, 8)}</Link> · expires{' '}
                {new Date(approval.expiresAt).toLocaleString()}
              </p>
              <ApprovalActions approval={approval} onDecided={() => void work.reload()} />
            </div>
          ))}
          <h2>Caller tool calls</h2>
          {work.data.toolCalls.length === 0 ? (
            <p className="empty">
              No caller tool calls are waiting. Your integration claims and answers them through the API (see the client's <code>workPendingToolCalls</code>).
            </p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Status</th>
                  <th scope="col">Session</th>
                  <th scope="col">Lease until</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {work.data.toolCalls.map((call) => (
                  <tr key={call.id}>
                    <td>
                      <code>{call.toolName}</code>
                    </td>
                    <td>
                      <StatusBadge status={call.status} />
                    </td>
                    <td>
                      <Link to={`/sessions/${call.sessionId}`}>{call.sessionId.slice(0, 8)}</Link>
                    </td>
                    <td>{call.leaseExpiresAt ? new Date(call.leaseExpiresAt).toLocaleTimeString() : '—'}</td>
                    <td>{new Date(call.createdAt).toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ) : (
        <p aria-busy="true">Loading…</p>
      )}
    </section>
  );
}
