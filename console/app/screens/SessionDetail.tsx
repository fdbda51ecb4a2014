import { useEffect, useState, type FormEvent } from 'react';
import type { SessionDetail } from '../../../client/src/index.ts';
import { ApprovalActions } from '../components/ApprovalActions.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { eventLabel } from '../components/eventLabel.ts';
import { toAttachments } from '../components/files.ts';
import { liveReplies, type LiveReply } from '../components/liveReplies.ts';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useAction } from '../components/useAction.ts';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { useSessionStream } from '../components/useSessionStream.ts';
import { Waterfall } from '../components/Waterfall.tsx';
import { Link } from '../router.tsx';
import { useSigned } from '../session.tsx';

const SETTLED = ['completed', 'failed', 'cancelled', 'timed_out'];

/**
 * Everything about one session, kept current from the session's own stream: transcript (with
 * the reply being written below it, growing as the model writes, until the committed message
 * replaces it), runs, the timing waterfall, pending tool calls and approvals, workspace files,
 * debug records; a follow-up message once idle, cancel while a run is going.
 */
export function SessionDetailScreen({ sessionId }: { sessionId: string }) {
  const { client } = useSigned();
  const session = useResource(() => client.call('get', '/v1/projects/{projectId}/sessions/{sessionId}', { path: { sessionId } }), [client, sessionId]);
  const files = useResource(() => client.call('get', '/v1/projects/{projectId}/sessions/{sessionId}/files', { path: { sessionId } }), [client, sessionId]);
  const [now, setNow] = useState(Date.now());
  const data = session.data;
  // Every event of the stream is this session's (its runs, messages, tool calls, approvals,
  // delegations): each one re-reads the session, a settled run also its workspace files.
  const stream = useSessionStream(client, sessionId, {
    onEvent: (event) => {
      void session.refresh();
      if (event.kind === 'run.completed' || event.kind === 'run.failed') void files.refresh();
    },
    // Read again once the stream is open: nothing committed between the first read and then is missed.
    onConnect: () => void session.refresh(),
  });
  const live = stream.connected;
  // A turn's live text gives way to its message in the same render the re-read transcript shows
  // it (`message.created` re-reads the session); then the run's live text is forgotten.
  const { replies, forget } = stream;
  const transcript = data?.transcript;
  useEffect(() => {
    for (const runId of liveReplies(replies, transcript ?? []).done) forget(runId);
  }, [replies, transcript, forget]);
  const running = data ? !SETTLED.includes(data.status) : false;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);

  if (!data) return session.error ? <ErrorNotice error={session.error} /> : <p aria-busy="true">Loading the session…</p>;
  const latest = data.runs.at(-1);
  return (
    <section>
      <p className="crumbs"><Link to="/sessions">Sessions</Link> /</p>
      <div className="heading">
        <h1>{data.title ?? `Session ${data.id.slice(0, 8)}`}</h1>
        <StatusBadge status={data.status} />
        <span className={`live ${live ? 'on' : ''}`} aria-live="polite">{live ? 'Live' : 'Reconnecting…'}</span>
        {latest && running ? <CancelRun runId={latest.id} onCancelled={() => void session.reload()} /> : null}
      </div>
      <dl className="facts">
        <dt>Agent version</dt><dd><Link to={`/agents/${data.agentId}`}><code>{data.agentVersionId.slice(0, 8)}</code></Link></dd>
        <dt>Tokens</dt><dd>in {data.inputTokens.toLocaleString('en')} · out {data.outputTokens.toLocaleString('en')} · cache read {data.cacheReadTokens.toLocaleString('en')} · cache write {data.cacheWriteTokens.toLocaleString('en')}</dd>
        {latest?.failure ? (<><dt>Failure</dt><dd><code>{latest.failure.errorCode}</code> {latest.failure.errorExplanation}</dd></>) : null}
      </dl>

      <PendingWork session={data} onChanged={() => void session.reload()} />

      <h2>Transcript</h2>
      <ol className="transcript" aria-live="polite">
        {data.transcript.map((message) => (
          <li key={message.id} className={`message ${message.role}`}>
            <span className="role">{message.role}</span>
            {message.text ? <p>{message.text}</p> : null}
            {message.toolCalls.map((call) => <p key={call.toolCallId} className="muted">calls <code>{call.toolName}</code></p>)}
            {message.toolResult ? <p className="muted">result of <code>{message.toolResult.toolName}</code>{message.toolResult.isError ? ' (error)' : ''}</p> : null}
            {message.attachments.map((file) => <p key={file.id} className="muted">attached {file.filename} ({file.sizeBytes.toLocaleString('en')} bytes)</p>)}
          </li>
        ))}
      </ol>
      <LiveReplies replies={liveReplies(replies, data.transcript).writing} />
      {!running ? <FollowUp sessionId={sessionId} onSent={() => void session.reload()} /> : <p className="muted" aria-busy="true">The agent is working; follow-up messages open when the run settles.</p>}

      <h2>Timeline</h2>
      <Waterfall session={data} now={now} />

      <h2>Runs</h2>
      <table>
        <thead><tr><th scope="col">Run</th><th scope="col">State</th><th scope="col">Message</th><th scope="col">Created</th><th scope="col">Settled</th></tr></thead>
        <tbody>
          {data.runs.map((run) => (
            <tr key={run.id}>
              <td><code>{run.id.slice(0, 8)}</code></td>
              <td><StatusBadge status={run.state} />{run.failure ? <span className="muted small"> {run.failure.errorCode}</span> : null}</td>
              <td>{run.inputPublic.message}</td>
              <td>{new Date(run.createdAt).toLocaleTimeString()}</td>
              <td>{run.settledAt ? new Date(run.settledAt).toLocaleTimeString() : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Workspace files</h2>
      <ErrorNotice error={files.error} />
      {files.data && files.data.data.length > 0 ? (
        <>
          <p className="muted">Backup generation {files.data.generation} of run <code>{files.data.lastRunId?.slice(0, 8)}</code>, {files.data.backedUpAt ? new Date(files.data.backedUpAt).toLocaleString() : ''}</p>
          <ul className="files">
            {files.data.data.map((file) => (
              <li key={file.path}>
                <a href={`/v1/projects/${data.projectId}/sessions/${data.id}/files/${file.path.split('/').map(encodeURIComponent).join('/')}`} download={file.name}>{file.path}</a>
                <span className="muted small"> {file.sizeBytes.toLocaleString('en')} bytes</span>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">No workspace files: a session gets them when its agent has a sandbox and a run has finished.</p>
      )}

      <h2>Agent</h2>
      <p>Tools: {data.tools.length ? data.tools.map((tool) => <code key={tool.name} title={tool.description}>{tool.name}{tool.approval === 'always' ? ' (approval)' : ''}</code>) : <span className="muted">none</span>}</p>
      <p>Skills: {data.skills.length ? data.skills.map((skill) => <code key={skill.skillVersionId}>{skill.name} v{skill.version}</code>) : <span className="muted">none</span>}</p>
      {data.delegations.length ? <Delegations session={data} onChanged={() => void session.reload()} /> : null}

      <Debug session={data} />
    </section>
  );
}

/**
 * The assistant's replies being written, below the transcript: marked as in progress, and busy
 * for assistive technology until the committed message arrives in the transcript (itself a
 * polite live region), so a screen reader reads the reply once, whole, rather than every chunk.
 */
function LiveReplies({ replies }: { replies: LiveReply[] }) {
  return (
    <div className="live-replies" aria-live="polite">
      {replies.map((reply) => (
        <section key={`${reply.runId}:${reply.turn}`} className="message assistant writing" aria-label="Reply being written" aria-busy="true">
          <span className="role">assistant <span className="writing-note">· writing…</span></span>
          <p>{reply.text}</p>
        </section>
      ))}
    </div>
  );
}

/** The child sessions this session delegated to: open one, message or cancel an open delegation. */
function Delegations({ session, onChanged }: { session: SessionDetail; onChanged: () => void }) {
  const { client } = useSigned();
  const action = useRowAction(async () => onChanged());
  const open = session.delegations.filter((delegation) => delegation.state === 'open');
  return (
    <>
      <h3>Delegations</h3>
      <ErrorNotice error={action.error} />
      <table>
        <thead><tr><th scope="col">Delegate</th><th scope="col">Relation</th><th scope="col">Latest child run</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
        <tbody>
          {session.delegations.map((delegation) => (
            <tr key={delegation.id}>
              <td><Link to={`/sessions/${delegation.childSessionId}`}>{delegation.delegateKey}</Link></td>
              <td>{delegation.state}</td>
              <td>{delegation.latestChildRunState ? <StatusBadge status={delegation.latestChildRunState} /> : '—'}</td>
              <td>{delegation.state === 'open' ? <button type="button" className="small danger" onClick={() => void action.act(() => client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}/cancel', { path: { sessionId: session.id, delegationId: delegation.id } }), `Cancel the delegation to ${delegation.delegateKey}? Its child run is cancelled and the relation closes.`)}>Cancel delegation</button> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {open.length > 0 ? (
        <SimpleForm
          title="Message a delegate"
          submitLabel="Send to the delegate"
          doneLabel="Sent: the child session runs it."
          fields={[
            { name: 'delegationId', label: 'Delegate', type: 'select', options: open.map((delegation) => ({ value: delegation.id, label: delegation.delegateKey })) },
            { name: 'message', label: 'Message to the delegate', type: 'textarea', required: true },
          ]}
          onSubmit={async ({ delegationId, message }) => {
            await client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}/messages', { path: { sessionId: session.id, delegationId: String(delegationId) }, body: { message: String(message) } });
            onChanged();
          }}
        />
      ) : null}
    </>
  );
}

function PendingWork({ session, onChanged }: { session: SessionDetail; onChanged: () => void }) {
  const { toolCalls, approvals } = session.pendingWork;
  if (toolCalls.length === 0 && approvals.length === 0) return null;
  return (
    <div className="card pending" role="region" aria-label="Waiting for you">
      <h2>Waiting for a decision or a caller</h2>
      {approvals.map((approval) => (
        <div key={approval.id}>
          <p><strong>{approval.toolName}</strong> needs approval (expires {new Date(approval.expiresAt).toLocaleString()})</p>
          <ApprovalActions approval={approval} onDecided={onChanged} />
        </div>
      ))}
      {toolCalls.map((call) => (
        <p key={call.id}>
          Caller tool <strong>{call.toolName}</strong> is {call.status.replaceAll('_', ' ')}: your integration answers it (claim, then submit the result). <code>{call.id}</code>
        </p>
      ))}
    </div>
  );
}

function CancelRun({ runId, onCancelled }: { runId: string; onCancelled: () => void }) {
  const { client } = useSigned();
  const { busy, error, run } = useAction();
  const cancel = () => run(async () => (await client.call('post', '/v1/projects/{projectId}/runs/{runId}/cancel', { path: { runId } }), onCancelled()));
  return (
    <>
      <button type="button" className="danger" onClick={() => void cancel()} disabled={busy}>Cancel run</button>
      <ErrorNotice error={error} />
    </>
  );
}

function FollowUp({ sessionId, onSent }: { sessionId: string; onSent: () => void }) {
  const { client } = useSigned();
  const [message, setMessage] = useState('');
  const [files, setFiles] = useState<FileList | null>(null);
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    void run(async () => {
      const attachments = await toAttachments(files);
      await client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/runs', { path: { sessionId }, body: { ...(message ? { message } : {}), ...(attachments.length ? { files: attachments } : {}) } });
      setMessage('');
      form.reset();
      onSent();
    });
  };
  return (
    <form className="follow-up" onSubmit={submit} aria-label="Follow-up message">
      <label>
        Follow-up message
        <textarea name="message" rows={2} value={message} onChange={(event) => setMessage(event.target.value)} />
      </label>
      <label>
        Attach files
        <input type="file" multiple onChange={(event) => setFiles(event.target.files)} />
      </label>
      <ErrorNotice error={error} />
      <button type="submit" disabled={busy || (!message && !files?.length)}>{busy ? 'Sending…' : 'Send'}</button>
    </form>
  );
}

function Debug({ session }: { session: SessionDetail }) {
  const { debug } = session;
  return (
    <details className="debug">
      <summary>Debug records</summary>
      <h3>Model invocations</h3>
      <table>
        <thead><tr><th scope="col">Turn</th><th scope="col">Attempt</th><th scope="col">Status</th><th scope="col">Tokens in / out</th><th scope="col">Finish</th><th scope="col">Error</th></tr></thead>
        <tbody>
          {debug.modelInvocations.map((invocation) => (
            <tr key={invocation.id}>
              <td><code>{invocation.turnId.slice(0, 8)}</code></td>
              <td>{invocation.attempt}</td>
              <td>{invocation.status}</td>
              <td>{invocation.inputTokens} / {invocation.outputTokens}</td>
              <td>{invocation.finishReason ?? '—'}</td>
              <td>{invocation.errorCode ? `${invocation.errorCode}: ${invocation.errorExplanation ?? ''}` : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Tool calls</h3>
      {debug.toolCalls.length ? <ul>{debug.toolCalls.map((call) => <li key={call.id}><code>{call.toolName}</code> {call.status}{call.failure ? ` (${call.failure.code})` : ''}</li>)}</ul> : <p className="muted">None.</p>}
      <h3>Approvals</h3>
      {debug.approvals.length ? <ul>{debug.approvals.map((approval) => <li key={approval.id}><code>{approval.toolName}</code> <StatusBadge status={approval.status} />{approval.decidedAt ? ` ${new Date(approval.decidedAt).toLocaleString()}` : ''}{approval.note ? ` — ${approval.note}` : ''}</li>)}</ul> : <p className="muted">None.</p>}
      <h3>Sandboxes</h3>
      {debug.sandboxes.length ? <ul>{debug.sandboxes.map((sandbox) => <li key={sandbox.id}><code>{sandbox.id.slice(0, 8)}</code> snapshot <code>{sandbox.snapshotId.slice(0, 8)}</code>, network {sandbox.network}, last used {new Date(sandbox.lastUsedAt).toLocaleString()}</li>)}</ul> : <p className="muted">None.</p>}
      <h3>Workspace backups</h3>
      {debug.workspaceBackups.length ? <ul>{debug.workspaceBackups.map((backup) => <li key={backup.id}>generation {backup.generation}: {backup.fileCount} {backup.fileCount === 1 ? 'file' : 'files'}, {backup.totalBytes.toLocaleString('en')} bytes (archive {backup.archiveSizeBytes.toLocaleString('en')} bytes) <span className="muted small">{new Date(backup.createdAt).toLocaleString()}</span></li>)}</ul> : <p className="muted">None.</p>}
      <h3>Sandbox commands</h3>
      {debug.sandboxCommands.length ? <ul>{debug.sandboxCommands.map((command) => <li key={command.id}><code>{command.toolName}</code> <code>{JSON.stringify(command.safeCommand)}</code></li>)}</ul> : <p className="muted">None.</p>}
      <h3>Events ({debug.productEvents.length})</h3>
      <ol className="events">{debug.productEvents.map((event) => <li key={event.id}><code>{event.projectPosition}</code> {eventLabel(event.kind)} <code className="muted small">{event.kind}</code> <span className="muted small">{event.occurredAt}</span></li>)}</ol>
    </details>
  );
}
