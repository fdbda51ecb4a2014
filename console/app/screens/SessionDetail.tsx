import { useEffect, useState, type FormEvent } from 'react';
import type { PendingTurn, ProjectClient, PublicAgent, PublicRun, SessionDetail } from '../../../client/src/index.ts';
import { ApprovalActions } from '../components/ApprovalActions.tsx';
import { ContextMeter } from '../components/ContextMeter.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { eventLabel } from '../components/eventLabel.ts';
import { toAttachments } from '../components/files.ts';
import { liveReplies, type LiveReply } from '../components/liveReplies.ts';
import { formatCost, formatTokens } from '../components/money.ts';
import { SessionBudget } from '../components/SessionBudget.tsx';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useAction } from '../components/useAction.ts';
import { useCan } from '../components/useCan.ts';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { useSessionStream } from '../components/useSessionStream.ts';
import { Waterfall } from '../components/Waterfall.tsx';
import { Link, navigate } from '../router.tsx';
import { useSigned } from '../session.tsx';

const SETTLED = ['completed', 'failed', 'cancelled', 'timed_out'];

/**
 * Everything about one session, kept current from the session's own stream: transcript (with
 * the reply being written below it, growing as the model writes, until the committed message
 * replaces it), runs with the turns waiting behind the active one, the timing waterfall, pending
 * tool calls and approvals, workspace files, debug records. A message is sent at once when no
 * run is going; while one is, it is queued behind it or interrupts it
 * (docs/decisions/if-busy.md). A settled run can be forked into a new session, on any version.
 */
export function SessionDetailScreen({ sessionId }: { sessionId: string }) {
  const { client, context } = useSigned();
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
  // Idle (no run yet) and settled sessions take a message at once; otherwise a run is going.
  const running = data ? !SETTLED.includes(data.status) && data.status !== 'idle' : false;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);

  if (!data) return session.error ? <ErrorNotice error={session.error} /> : <p aria-busy="true">Loading the session…</p>;
  const latest = data.runs.at(-1);
  return (
    <section>
      <p className="crumbs">
        <Link to="/sessions">Sessions</Link> /
      </p>
      <div className="heading">
        <h1>{data.title ?? `Session ${data.id.slice(0, 8)}`}</h1>
        <StatusBadge status={data.status} />
        <span className={`live ${live ? 'on' : ''}`} aria-live="polite">
          {live ? 'Live' : 'Reconnecting…'}
        </span>
        {latest && running ? <CancelRun runId={latest.id} onCancelled={() => void session.reload()} /> : null}
      </div>
      <dl className="facts">
        <dt>Agent version</dt>
        <dd>
          <Link to={`/agents/${data.agentId}`}>
            <code>{data.agentVersionId.slice(0, 8)}</code>
          </Link>
        </dd>
        <dt>Tokens</dt>
        <dd>
          in {formatTokens(data.inputTokens)} · out {formatTokens(data.outputTokens)} · cache read {formatTokens(data.cacheReadTokens)} · cache write{' '}
          {formatTokens(data.cacheWriteTokens)}
        </dd>
        <dt>Cost</dt>
        <dd>{formatCost(data.cost, context.currency)}</dd>
        <dt>Budget</dt>
        <dd>
          <SessionBudget key={JSON.stringify(data.budget)} session={data} onChanged={() => void session.reload()} />
        </dd>
        {latest?.failure ? (
          <>
            <dt>Failure</dt>
            <dd>
              <code>{latest.failure.errorCode}</code> {latest.failure.errorExplanation}
            </dd>
          </>
        ) : null}
        {data.forkedFrom ? (
          <>
            <dt>Forked from</dt>
            <dd>
              <Link to={`/sessions/${data.forkedFrom.sessionId}`}>
                session <code>{data.forkedFrom.sessionId.slice(0, 8)}</code>
              </Link>{' '}
              at run <code>{data.forkedFrom.runId.slice(0, 8)}</code>
            </dd>
          </>
        ) : null}
      </dl>

      <PendingWork session={data} onChanged={() => void session.reload()} />

      <h2>Transcript</h2>
      <ol className="transcript" aria-live="polite">
        {data.transcript.map((message) => (
          <li key={message.id} className={`message ${message.role}`}>
            <span className="role">{message.role}</span>
            {message.text ? <p>{message.text}</p> : null}
            {message.toolCalls.map((call) => (
              <p key={call.toolCallId} className="muted">
                calls <code>{call.toolName}</code>
              </p>
            ))}
            {message.toolResult ? (
              <p className="muted">
                result of <code>{message.toolResult.toolName}</code>
                {message.toolResult.isError ? ' (error)' : ''}
              </p>
            ) : null}
            {message.attachments.map((file) => (
              <p key={file.id} className="muted">
                attached {file.filename} ({file.sizeBytes.toLocaleString('en')} bytes)
              </p>
            ))}
          </li>
        ))}
      </ol>
      <LiveReplies replies={liveReplies(replies, data.transcript).writing} />
      {data.status === 'idle' ? <p className="muted">Idle: the session has no run yet. Its first message starts one.</p> : null}
      {!running || !data.parentSessionId ? (
        <FollowUp sessionId={sessionId} busy={running} first={data.status === 'idle'} pendingTurns={data.pendingTurns} onSent={() => void session.reload()} />
      ) : (
        // A delegated session's turns are its coordinator's to drive: no queue or interrupt here.
        <p className="muted" aria-busy="true">
          The agent is working; follow-up messages open when the run settles.
        </p>
      )}

      <h2>Context</h2>
      <ContextMeter session={data} />

      <h2>Timeline</h2>
      <Waterfall session={data} now={now} />

      <h2>Runs</h2>
      <Runs session={data} onChanged={() => void session.reload()} />

      <h2>Workspace files</h2>
      <ErrorNotice error={files.error} />
      {files.data && files.data.data.length > 0 ? (
        <>
          <p className="muted">
            Backup generation {files.data.generation} of run <code>{files.data.lastRunId?.slice(0, 8)}</code>,{' '}
            {files.data.backedUpAt ? new Date(files.data.backedUpAt).toLocaleString() : ''}
          </p>
          <ul className="files">
            {files.data.data.map((file) => (
              <li key={file.path}>
                <a
                  href={`/v1/projects/${data.projectId}/sessions/${data.id}/files/${file.path.split('/').map(encodeURIComponent).join('/')}`}
                  download={file.name}
                >
                  {file.path}
                </a>
                <span className="muted small"> {file.sizeBytes.toLocaleString('en')} bytes</span>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">No workspace files: a session gets them when its agent has a sandbox and a run has finished.</p>
      )}

      <h2>Agent</h2>
      <p>
        Tools:{' '}
        {data.tools.length ? (
          data.tools.map((tool) => (
            <code key={tool.name} title={tool.description}>
              {tool.name}
              {tool.approval === 'always' ? ' (approval)' : ''}
            </code>
          ))
        ) : (
          <span className="muted">none</span>
        )}
      </p>
      <p>
        Skills:{' '}
        {data.skills.length ? (
          data.skills.map((skill) => (
            <code key={skill.skillVersionId}>
              {skill.name} v{skill.version}
            </code>
          ))
        ) : (
          <span className="muted">none</span>
        )}
      </p>
      {data.delegations.length ? <Delegations session={data} onChanged={() => void session.reload()} /> : null}

      <MemoryStores session={data} />

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
          <span className="role">
            assistant <span className="writing-note">· writing…</span>
          </span>
          <p>{reply.text}</p>
        </section>
      ))}
    </div>
  );
}

/**
 * The memory stores attached when the session was created (docs/memory.md), each with its access
 * and where the agent finds it, and what the session's runs wrote to them.
 */
function MemoryStores({ session }: { session: SessionDetail }) {
  const can = useCan();
  const names = new Map(session.memoryStores.map((store) => [store.storeId, store.name]));
  const store = (storeId: string, name: string) => (can('memory:read') ? <Link to={`/memory/${storeId}`}>{name}</Link> : name);
  return (
    <>
      <h2>Memory stores</h2>
      {session.memoryStores.length ? (
        <table aria-label="Attached memory stores">
          <thead>
            <tr>
              <th scope="col">Store</th>
              <th scope="col">Access</th>
              <th scope="col">Mount path</th>
              <th scope="col">Instructions</th>
            </tr>
          </thead>
          <tbody>
            {session.memoryStores.map((attached) => (
              <tr key={attached.storeId}>
                <th scope="row">
                  {store(attached.storeId, attached.name)}
                  {attached.description ? <div className="muted small">{attached.description}</div> : null}
                </th>
                <td>{attached.access === 'read_only' ? 'read only' : 'read and write'}</td>
                <td>
                  <code>{attached.mountPath}</code>
                </td>
                <td>{attached.instructions ?? <span className="muted">none</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No memory stores attached: a session attaches them when it is created.</p>
      )}
      {session.memoryWrites.length ? (
        <ul className="files" aria-label="Written to memory">
          {session.memoryWrites.map((write) => (
            <li key={write.versionId}>
              {write.operation} <code>{write.path ?? 'a redacted path'}</code> in {store(write.storeId, names.get(write.storeId) ?? write.storeId.slice(0, 8))}
              <span className="muted small">
                {' '}
                {write.contentSizeBytes === null ? '' : `${write.contentSizeBytes.toLocaleString('en')} bytes · `}run <code>{write.runId.slice(0, 8)}</code> ·{' '}
                {new Date(write.createdAt).toLocaleString()}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
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
      <table aria-label="Delegations">
        <thead>
          <tr>
            <th scope="col">Delegate</th>
            <th scope="col">Relation</th>
            <th scope="col">Latest child run</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {session.delegations.map((delegation) => (
            <tr key={delegation.id}>
              <td>
                <Link to={`/sessions/${delegation.childSessionId}`}>{delegation.delegateKey}</Link>
              </td>
              <td>{delegation.state}</td>
              <td>{delegation.latestChildRunState ? <StatusBadge status={delegation.latestChildRunState} /> : '—'}</td>
              <td>
                {delegation.state === 'open' ? (
                  <button
                    type="button"
                    className="small danger"
                    onClick={() =>
                      void action.act(
                        () =>
                          client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}/cancel', {
                            path: { sessionId: session.id, delegationId: delegation.id },
                          }),
                        `Cancel the delegation to ${delegation.delegateKey}? Its child run is cancelled and the relation closes.`,
                      )
                    }
                  >
                    Cancel delegation
                  </button>
                ) : null}
              </td>
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
            {
              name: 'delegationId',
              label: 'Delegate',
              type: 'select',
              options: open.map((delegation) => ({ value: delegation.id, label: delegation.delegateKey })),
            },
            { name: 'message', label: 'Message to the delegate', type: 'textarea', required: true },
          ]}
          onSubmit={async ({ delegationId, message }) => {
            await client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/delegations/{delegationId}/messages', {
              path: { sessionId: session.id, delegationId: String(delegationId) },
              body: { message: String(message) },
            });
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
          <p>
            <strong>{approval.toolName}</strong> needs approval (expires {new Date(approval.expiresAt).toLocaleString()})
          </p>
          <ApprovalActions approval={approval} onDecided={onChanged} />
        </div>
      ))}
      {toolCalls.map((call) => (
        <p key={call.id}>
          Caller tool <strong>{call.toolName}</strong> is {call.status.replaceAll('_', ' ')}: your integration answers it (claim, then submit the result).{' '}
          <code>{call.id}</code>
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
      <button type="button" className="danger" onClick={() => void cancel()} disabled={busy}>
        Cancel run
      </button>
      <ErrorNotice error={error} />
    </>
  );
}

/**
 * The message box. With no run going it sends at once ("Send"); while a run is going it offers
 * "Queue" (the message waits as a pending turn and runs after that run and the turns before it)
 * and "Interrupt" (the run is cancelled, the queued turns are dropped, and this message runs
 * next), sent as the follow-up's `ifBusy`.
 */
function FollowUp({
  sessionId,
  busy,
  first,
  pendingTurns,
  onSent,
}: {
  sessionId: string;
  busy: boolean;
  first: boolean;
  pendingTurns: PendingTurn[];
  onSent: () => void;
}) {
  const { client } = useSigned();
  const [message, setMessage] = useState('');
  const [files, setFiles] = useState<FileList | null>(null);
  const [queued, setQueued] = useState<PendingTurn | null>(null);
  const { busy: sending, error, run } = useAction();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    // Which button sent the form: Send (no run going), Queue or Interrupt.
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const ifBusy = submitter?.value === 'interrupt' ? 'interrupt' : submitter?.value === 'enqueue' ? 'enqueue' : undefined;
    if (ifBusy === 'interrupt' && !globalThis.confirm('Interrupt the run? It is cancelled, the queued messages are dropped, and this message runs next.'))
      return;
    setQueued(null);
    void run(async () => {
      const attachments = await toAttachments(files);
      const answer = await client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/runs', {
        path: { sessionId },
        body: { ...(message ? { message } : {}), ...(attachments.length ? { files: attachments } : {}), ...(ifBusy ? { ifBusy } : {}) },
      });
      if ('queued' in answer) setQueued(answer.pendingTurn);
      setMessage('');
      form.reset();
      onSent();
    });
  };
  const label = first ? 'First message' : 'Follow-up message';
  const waiting = queued ? pendingTurns.find((turn) => turn.id === queued.id) : undefined;
  const empty = !message && !files?.length;
  return (
    <form className="follow-up" onSubmit={submit} aria-label={label}>
      <label>
        {label}
        <textarea name="message" rows={2} value={message} onChange={(event) => setMessage(event.target.value)} />
      </label>
      <label>
        Attach files
        <input type="file" multiple onChange={(event) => setFiles(event.target.files)} />
      </label>
      <ErrorNotice error={error} />
      {/* Said while the message still waits: once it has become a run (or was withdrawn) the Runs table tells. */}
      {waiting ? (
        <p className="notice good" role="status">
          Queued at position {waiting.position}: it runs{' '}
          {waiting.ifBusy === 'interrupt' ? 'once the interrupted run has settled' : 'after the active run and the messages queued before it'}.
        </p>
      ) : null}
      {busy ? (
        <>
          <p className="muted small">The agent is working. Queue the message to run after it, or interrupt the run and send this message instead.</p>
          <div className="actions-row">
            <button type="submit" name="ifBusy" value="enqueue" disabled={sending || empty}>
              Queue
            </button>
            <button type="submit" name="ifBusy" value="interrupt" className="danger" disabled={sending || empty}>
              Interrupt
            </button>
          </div>
        </>
      ) : (
        <button type="submit" disabled={sending || empty}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      )}
    </form>
  );
}

/**
 * The session's runs, oldest first, with the turns waiting behind the active run right under it
 * (each can be withdrawn until it starts), and Fork on every settled run.
 */
function Runs({ session, onChanged }: { session: SessionDetail; onChanged: () => void }) {
  const { client, context } = useSigned();
  const [forking, setForking] = useState<PublicRun | null>(null);
  const withdraw = useRowAction(async () => onChanged());
  if (session.runs.length === 0) return <p className="muted">No runs yet.</p>;
  return (
    <>
      <ErrorNotice error={withdraw.error} />
      <table aria-label="Runs">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">State</th>
            <th scope="col">Message</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Cost</th>
            <th scope="col">Created</th>
            <th scope="col">Settled</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {session.runs.map((run) => (
            <tr key={run.id}>
              <td>
                <code>{run.id.slice(0, 8)}</code>
              </td>
              <td>
                <StatusBadge status={run.state} />
                {run.failure ? <span className="muted small"> {run.failure.errorCode}</span> : null}
              </td>
              <td>{run.inputPublic.message}</td>
              <td>
                {formatTokens(run.inputTokens)} / {formatTokens(run.outputTokens)}
              </td>
              <td>{formatCost(run.cost, context.currency)}</td>
              <td>{new Date(run.createdAt).toLocaleTimeString()}</td>
              <td>{run.settledAt ? new Date(run.settledAt).toLocaleTimeString() : '—'}</td>
              <td>
                {SETTLED.includes(run.state) ? (
                  <button
                    type="button"
                    className="small"
                    aria-expanded={forking?.id === run.id}
                    onClick={() => setForking(forking?.id === run.id ? null : run)}
                  >
                    Fork
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
          {session.pendingTurns.map((turn) => (
            <tr key={turn.id} className="pending-turn">
              <td>
                <span className="muted">waiting #{turn.position}</span>
              </td>
              <td>
                <StatusBadge status="pending" /> <span className="muted small">{turn.ifBusy === 'interrupt' ? 'after the interrupted run' : 'queued'}</span>
              </td>
              <td>
                {turn.message}
                {turn.attachments.length ? <span className="muted small"> · {turn.attachments.map((file) => file.filename).join(', ')}</span> : null}
              </td>
              <td>—</td>
              <td>—</td>
              <td>{new Date(turn.createdAt).toLocaleTimeString()}</td>
              <td>—</td>
              <td>
                <button
                  type="button"
                  className="small danger"
                  disabled={withdraw.busy}
                  onClick={() =>
                    void withdraw.act(
                      () =>
                        client.call('delete', '/v1/projects/{projectId}/sessions/{sessionId}/pending-turns/{turnId}', {
                          path: { sessionId: session.id, turnId: turn.id },
                        }),
                      'Withdraw this queued message? It will not run.',
                    )
                  }
                >
                  Withdraw
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {forking ? <ForkForm session={session} run={forking} onClose={() => setForking(null)} /> : null}
    </>
  );
}

/** The versions a fork may run on: every version of every agent of the project, newest first per agent. */
async function loadVersionChoices(client: ProjectClient) {
  const agents: PublicAgent[] = [];
  for await (const agent of client.list('/agents', { limit: 100 })) agents.push(agent);
  return Promise.all(
    agents.map(async (agent) => {
      const { data } = await client.call('get', '/v1/projects/{projectId}/agents/{agentId}/versions', { path: { agentId: agent.id } });
      return { agent, versions: [...data].sort((a, b) => b.version - a.version) };
    }),
  );
}

/**
 * Fork from one settled run: a new session whose transcript is this session's through that run,
 * on the version picked (this session's by default), idle unless a first message is given; then
 * the console opens it. Its workspace is copied when the run is the session's latest (and its
 * backup verifies), else it starts empty.
 */
function ForkForm({ session, run, onClose }: { session: SessionDetail; run: PublicRun; onClose: () => void }) {
  const { client } = useSigned();
  const choices = useResource(() => loadVersionChoices(client), [client]);
  const [versionId, setVersionId] = useState(session.agentVersionId);
  const [title, setTitle] = useState('');
  const [message, setMessage] = useState('');
  const { busy, error, run: act } = useAction();
  const latest = session.runs.at(-1)?.id === run.id;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      const forked = await client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/fork', {
        path: { sessionId: session.id },
        body: { fromRunId: run.id, agentVersionId: versionId, ...(title ? { title } : {}), ...(message ? { initialMessage: message } : {}) },
      });
      navigate(`/sessions/${forked.id}`);
    });
  };
  return (
    <form className="card" onSubmit={submit} aria-label={`Fork from run ${run.id.slice(0, 8)}`}>
      <h3>
        Fork from run <code>{run.id.slice(0, 8)}</code>
      </h3>
      <p className="muted small">
        A new session with this conversation through this run.{' '}
        {latest
          ? "It starts from a copy of this session's workspace files, when they have a backup."
          : 'Its workspace starts empty: this is not the latest run.'}
      </p>
      <ErrorNotice error={choices.error} />
      <div className="row">
        <label>
          Agent version
          <select name="agentVersionId" value={versionId} onChange={(event) => setVersionId(event.target.value)} disabled={!choices.data}>
            {choices.data ? null : <option value={session.agentVersionId}>This session's version</option>}
            {choices.data?.map(({ agent, versions }) => (
              <optgroup key={agent.id} label={agent.name}>
                {versions.map((version) => (
                  <option key={version.id} value={version.id}>
                    {agent.name} v{version.version}
                    {version.id === session.agentVersionId ? " (this session's)" : ''}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </label>
        <label>
          Title <span className="muted small">(optional)</span>
          <input name="title" value={title} onChange={(event) => setTitle(event.target.value)} />
        </label>
      </div>
      <label>
        First message <span className="muted small">(optional: without one the fork waits, idle)</span>
        <textarea name="message" rows={2} value={message} onChange={(event) => setMessage(event.target.value)} />
      </label>
      <ErrorNotice error={error} />
      <div className="actions-row">
        <button type="submit" disabled={busy || !choices.data} aria-busy={busy}>
          {busy ? 'Forking…' : 'Create fork'}
        </button>
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}

function Debug({ session }: { session: SessionDetail }) {
  const { context } = useSigned();
  const { debug } = session;
  return (
    <details className="debug">
      <summary>Debug records</summary>
      <h3>Model invocations</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Turn</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Cost</th>
            <th scope="col">Finish</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {debug.modelInvocations.map((invocation) => (
            <tr key={invocation.id}>
              <td>
                <code>{invocation.turnId.slice(0, 8)}</code>
              </td>
              <td>{invocation.attempt}</td>
              <td>{invocation.status}</td>
              <td>
                {invocation.inputTokens} / {invocation.outputTokens}
              </td>
              <td>{formatCost(invocation.cost, context.currency)}</td>
              <td>{invocation.finishReason ?? '—'}</td>
              <td>{invocation.errorCode ? `${invocation.errorCode}: ${invocation.errorExplanation ?? ''}` : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Tool calls</h3>
      {debug.toolCalls.length ? (
        <ul>
          {debug.toolCalls.map((call) => (
            <li key={call.id}>
              <code>{call.toolName}</code> {call.status}
              {call.failure ? ` (${call.failure.code})` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Approvals</h3>
      {debug.approvals.length ? (
        <ul>
          {debug.approvals.map((approval) => (
            <li key={approval.id}>
              <code>{approval.toolName}</code> <StatusBadge status={approval.status} />
              {approval.decidedAt ? ` ${new Date(approval.decidedAt).toLocaleString()}` : ''}
              {approval.note ? ` — ${approval.note}` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Sandboxes</h3>
      {debug.sandboxes.length ? (
        <ul>
          {debug.sandboxes.map((sandbox) => (
            <li key={sandbox.id}>
              <code>{sandbox.id.slice(0, 8)}</code> snapshot <code>{sandbox.snapshotId.slice(0, 8)}</code>, network {sandbox.network}, last used{' '}
              {new Date(sandbox.lastUsedAt).toLocaleString()}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Workspace backups</h3>
      {debug.workspaceBackups.length ? (
        <ul>
          {debug.workspaceBackups.map((backup) => (
            <li key={backup.id}>
              generation {backup.generation}: {backup.fileCount} {backup.fileCount === 1 ? 'file' : 'files'}, {backup.totalBytes.toLocaleString('en')} bytes
              (archive {backup.archiveSizeBytes.toLocaleString('en')} bytes) <span className="muted small">{new Date(backup.createdAt).toLocaleString()}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Sandbox commands</h3>
      {debug.sandboxCommands.length ? (
        <ul>
          {debug.sandboxCommands.map((command) => (
            <li key={command.id}>
              <code>{command.toolName}</code> <code>{JSON.stringify(command.safeCommand)}</code>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <h3>Events ({debug.productEvents.length})</h3>
      <ol className="events">
        {debug.productEvents.map((event) => (
          <li key={event.id}>
            <code>{event.projectPosition}</code> {eventLabel(event.kind)} <code className="muted small">{event.kind}</code>{' '}
            <span className="muted small">{event.occurredAt}</span>
          </li>
        ))}
      </ol>
    </details>
  );
}
