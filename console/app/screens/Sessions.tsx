import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { toAttachments } from '../components/files.ts';
import { FilteredTable } from '../components/Pager.tsx';
import { useLiveEvents } from '../components/useLiveEvents.ts';
import { useAction } from '../components/useAction.ts';
import { useResource } from '../components/useResource.ts';
import { Link, navigate } from '../router.tsx';
import { useSigned } from '../session.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { formatCost, formatTokens as tokens } from '../components/money.ts';

/** Sessions: the newest 100 with status, token counters and cost, live; and a new session (idle when started without a message). */
export function SessionsScreen() {
  const { client, context } = useSigned();
  const sessions = useResource(() => client.call('get', '/v1/projects/{projectId}/sessions', { query: { limit: '100' } }), [client]);
  const live = useLiveEvents(
    client,
    (event) => event.kind === 'session.created' || event.kind.startsWith('run.'),
    () => void sessions.refresh(),
  );
  const preselected = new URLSearchParams(window.location.search).get('agent');
  return (
    <section>
      <div className="heading">
        <h1>Sessions</h1>
        <span className={`live ${live ? 'on' : ''}`} aria-live="polite">
          {live ? 'Live' : 'Connecting…'}
        </span>
      </div>
      <NewSession preselected={preselected} />
      <ErrorNotice error={sessions.error} />
      {sessions.data ? (
        <FilteredTable
          label="sessions"
          items={sessions.data.data}
          filterText={(session) => `${session.title ?? ''} ${session.id} ${session.status} ${session.agentId}`}
          columns={['Session', 'Status', 'Tokens in / out', 'Cache read / write', 'Cost', 'Last activity']}
          empty={<p>No sessions yet. Start one above with an agent and, if you like, a first message.</p>}
          row={(session) => (
            <tr key={session.id}>
              <td>
                <Link to={`/sessions/${session.id}`}>{session.title ?? session.id.slice(0, 8)}</Link>
                {session.delegateKey ? <span className="muted small"> · delegate {session.delegateKey}</span> : null}
                {session.forkedFrom ? <span className="muted small"> · fork</span> : null}
              </td>
              <td>
                <StatusBadge status={session.status} />
              </td>
              <td>
                {tokens(session.inputTokens)} / {tokens(session.outputTokens)}
              </td>
              <td>
                {tokens(session.cacheReadTokens)} / {tokens(session.cacheWriteTokens)}
              </td>
              <td>{formatCost(session.cost, context.currency)}</td>
              <td>{new Date(session.lastActivityAt).toLocaleString()}</td>
            </tr>
          )}
        />
      ) : sessions.loading ? (
        <p aria-busy="true">Loading sessions…</p>
      ) : null}
    </section>
  );
}

function NewSession({ preselected }: { preselected: string | null }) {
  const { client } = useSigned();
  const agents = useResource(() => client.call('get', '/v1/projects/{projectId}/agents', { query: { limit: '100' } }), [client]);
  const [agentId, setAgentId] = useState(preselected ?? '');
  const [message, setMessage] = useState('');
  const [title, setTitle] = useState('');
  const [files, setFiles] = useState<FileList | null>(null);
  const [maxCost, setMaxCost] = useState('');
  const [maxTokens, setMaxTokens] = useState('');
  const { busy, error, run } = useAction();
  const chosen = agentId || agents.data?.data[0]?.id || '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const attachments = await toAttachments(files);
      // Either limit alone is a budget; neither is none.
      const budget = { ...(maxCost ? { maxCost: Number(maxCost) } : {}), ...(maxTokens ? { maxTokens: Number(maxTokens) } : {}) };
      const session = await client.call('post', '/v1/projects/{projectId}/sessions', {
        body: {
          agentId: chosen,
          ...(message ? { initialMessage: message } : {}),
          ...(title ? { title } : {}),
          ...(attachments.length ? { files: attachments } : {}),
          ...(maxCost || maxTokens ? { budget } : {}),
        },
      });
      navigate(`/sessions/${session.id}`);
    });
  };
  if (agents.data && agents.data.data.length === 0)
    return (
      <p className="empty">
        Create an <Link to="/agents">agent</Link> first; then start sessions with it here.
      </p>
    );
  return (
    <form className="card" onSubmit={submit} aria-label="New session">
      <h2>New session</h2>
      <div className="row">
        <label>
          Agent
          <select name="agent" value={chosen} onChange={(event) => setAgentId(event.target.value)}>
            {(agents.data?.data ?? []).map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name} (v{agent.version})
              </option>
            ))}
          </select>
        </label>
        <label>
          Title <span className="muted small">(optional)</span>
          <input name="title" value={title} onChange={(event) => setTitle(event.target.value)} />
        </label>
      </div>
      <label>
        Message <span className="muted small">(optional: without one the session waits, idle, for its first message)</span>
        <textarea name="message" rows={3} value={message} onChange={(event) => setMessage(event.target.value)} />
      </label>
      <label>
        Attach files <span className="muted small">(optional)</span>
        <input name="files" type="file" multiple onChange={(event) => setFiles(event.target.files)} />
      </label>
      <div className="row">
        <label>
          Budget: max cost <span className="muted small">(optional; a run past it fails)</span>
          <input name="maxCost" type="number" min="0" step="any" value={maxCost} onChange={(event) => setMaxCost(event.target.value)} />
        </label>
        <label>
          Budget: max tokens <span className="muted small">(optional; input plus output)</span>
          <input name="maxTokens" type="number" min="1" step="1" value={maxTokens} onChange={(event) => setMaxTokens(event.target.value)} />
        </label>
      </div>
      <ErrorNotice error={error} />
      <button type="submit" disabled={busy || !chosen} aria-busy={busy}>
        {busy ? 'Starting…' : 'Start session'}
      </button>
    </form>
  );
}
