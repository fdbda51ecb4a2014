import { useState, type FormEvent } from 'react';
import type { PublicAgent } from '../../../client/src/index.ts';
import { useSigned } from '../session.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';
import { secondsOf, UNITS, type Unit } from './scheduleText.ts';
import { useAction } from './useAction.ts';
import { useResource } from './useResource.ts';

const OVERLAPS = [
  { value: 'skip', label: 'Skip a firing while the last one still runs' },
  { value: 'buffer_one', label: 'Keep one firing waiting until the last one is done' },
  { value: 'allow_all', label: 'Run every firing, even side by side' },
] as const;
type Overlap = (typeof OVERLAPS)[number]['value'];

/**
 * A new schedule: an agent run on an interval or a cron expression (in a time zone), each
 * firing a new session or a turn of one session (queued behind a busy run, or skipped). The
 * service checks the rest (a cron it cannot read, a session of another project) and the
 * refusal shows here with the field it names.
 */
export function ScheduleForm({ agents, onCreated }: { agents: PublicAgent[]; onCreated: () => Promise<unknown> }) {
  const { client } = useSigned();
  const [target, setTarget] = useState<'new_session' | 'session'>('new_session');
  const [agentId, setAgentId] = useState('');
  const [sessionId, setSessionId] = useState('');
  const [ifBusy, setIfBusy] = useState<'enqueue' | 'skip'>('enqueue');
  const [timing, setTiming] = useState<'interval' | 'cron'>('interval');
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState<Unit>('hours');
  const [cron, setCron] = useState('');
  const [timeZone, setTimeZone] = useState('UTC');
  const [name, setName] = useState('');
  const [message, setMessage] = useState('');
  const [overlap, setOverlap] = useState<Overlap>('skip');
  const [paused, setPaused] = useState(false);
  const { busy, error, run } = useAction();
  // The sessions a schedule's turns may go to, only once that target is chosen.
  const sessions = useResource(
    () => (target === 'session' ? client.call('get', '/v1/projects/{projectId}/sessions', { query: { limit: '100' } }) : Promise.resolve(null)),
    [client, target],
  );
  const chosenAgent = agentId || agents[0]?.id || '';
  const chosenSession = sessionId || sessions.data?.data[0]?.id || '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await client.call('post', '/v1/projects/{projectId}/schedules', {
        body: {
          message,
          overlap,
          ...(name ? { name } : {}),
          ...(timing === 'interval' ? { intervalSeconds: secondsOf(Number(amount), unit) } : { cron, timeZone }),
          ...(target === 'new_session' ? { agentId: chosenAgent } : { target, sessionId: chosenSession, ifBusy }),
          ...(paused ? { paused } : {}),
        },
      });
      setName('');
      setMessage('');
      await onCreated();
    });
  };
  return (
    <form className="card" onSubmit={submit} aria-label="New schedule">
      <h2>New schedule</h2>
      <div className="row">
        <label>
          Name <span className="muted small">(optional; the title of the sessions it opens)</span>
          <input name="name" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Each firing
          <select name="target" value={target} onChange={(event) => setTarget(event.target.value as typeof target)}>
            <option value="new_session">opens a new session</option>
            <option value="session">is a turn of one session</option>
          </select>
        </label>
      </div>
      {target === 'new_session' ? (
        <label>
          Agent <span className="muted small">(its latest version at each firing)</span>
          <select name="agentId" value={chosenAgent} onChange={(event) => setAgentId(event.target.value)}>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <div className="row">
          <label>
            Session
            <select name="sessionId" value={chosenSession} onChange={(event) => setSessionId(event.target.value)} disabled={!sessions.data}>
              {(sessions.data?.data ?? []).map((session) => (
                <option key={session.id} value={session.id}>
                  {session.title ?? session.id.slice(0, 8)} ({session.status})
                </option>
              ))}
            </select>
          </label>
          <label>
            While the session is busy
            <select name="ifBusy" value={ifBusy} onChange={(event) => setIfBusy(event.target.value as typeof ifBusy)}>
              <option value="enqueue">queue the turn behind its run</option>
              <option value="skip">skip the firing</option>
            </select>
          </label>
        </div>
      )}
      <div className="row">
        <label>
          Repeat
          <select name="timing" value={timing} onChange={(event) => setTiming(event.target.value as typeof timing)}>
            <option value="interval">on an interval</option>
            <option value="cron">on a cron expression</option>
          </select>
        </label>
        {timing === 'interval' ? (
          <>
            <label>
              Every
              <input type="number" name="every" min="1" step="1" value={amount} onChange={(event) => setAmount(event.target.value)} required />
            </label>
            <label>
              Unit
              <select name="unit" value={unit} onChange={(event) => setUnit(event.target.value as Unit)}>
                {UNITS.map((entry) => (
                  <option key={entry.value} value={entry.value}>
                    {entry.label}
                  </option>
                ))}
              </select>
            </label>
          </>
        ) : (
          <>
            <label>
              Cron expression <span className="muted small">(minute hour day month weekday)</span>
              <input name="cron" value={cron} onChange={(event) => setCron(event.target.value)} placeholder="0 9 * * 1-5" required />
            </label>
            <label>
              Time zone <span className="muted small">(IANA, e.g. Europe/Paris)</span>
              <input name="timeZone" value={timeZone} onChange={(event) => setTimeZone(event.target.value)} required />
            </label>
          </>
        )}
      </div>
      <label>
        Message <span className="muted small">(what the agent is asked at each firing)</span>
        <textarea name="message" rows={3} value={message} onChange={(event) => setMessage(event.target.value)} required />
      </label>
      <label>
        Overlap
        <select name="overlap" value={overlap} onChange={(event) => setOverlap(event.target.value as Overlap)}>
          {OVERLAPS.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </select>
      </label>
      <div className="field check">
        <input id="schedule-paused" type="checkbox" name="paused" checked={paused} onChange={(event) => setPaused(event.target.checked)} />
        <label htmlFor="schedule-paused">Create it paused</label>
      </div>
      <ErrorNotice error={error} />
      <button type="submit" disabled={busy || (target === 'new_session' ? !chosenAgent : !chosenSession)} aria-busy={busy}>
        {busy ? 'Creating…' : 'Create schedule'}
      </button>
    </form>
  );
}
