import { useEffect, useRef, useState } from 'react';
import type { PublicAgent, PublicSchedule } from '../../../client/src/index.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { ScheduleForm } from '../components/ScheduleForm.tsx';
import { timingText } from '../components/scheduleText.ts';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useCan } from '../components/useCan.ts';
import { useLiveEvents } from '../components/useLiveEvents.ts';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { Link } from '../router.tsx';
import { useSigned } from '../session.tsx';

/** A schedule's next firing times show once its Temporal Schedule exists, moments after a change. */
const PENDING_RECHECK_MS = 1_000;
/** How many next firings and recent firings a row shows. */
const SHOWN = 3;
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * Schedules: each with its timing, its next firing times and its recent firings (each linking to
 * the session it opened or continued); create one, run one now, pause, unpause, delete. Kept
 * current from the event feed (a firing opens a session and queues a run) and by re-reading when
 * the soonest next firing is due.
 */
export function SchedulesScreen() {
  const { client } = useSigned();
  const can = useCan();
  const schedules = useResource(() => client.call('get', '/v1/projects/{projectId}/schedules', { query: { limit: '100' } }), [client]);
  const agents = useResource(async () => {
    const all: PublicAgent[] = [];
    for await (const agent of client.list('/agents', { limit: 100 })) all.push(agent);
    return all;
  }, [client]);
  const live = useLiveEvents(
    client,
    (event) => event.kind === 'session.created' || event.kind.startsWith('run.'),
    () => void schedules.refresh(),
  );
  useRecheck(schedules.data?.data ?? [], schedules.refresh);
  const action = useRowAction(schedules.reload);
  const [notice, setNotice] = useState<string | null>(null);
  const mayRead = can('schedule:read');
  const mayWrite = can('schedule:write');
  const mayFire = can('schedule:write', 'run:create');
  const agentNames = new Map((agents.data ?? []).map((agent) => [agent.id, agent.name]));

  if (!mayRead) {
    return (
      <section>
        <h1>Schedules</h1>
        <p className="empty">
          Reading schedules needs the <code>schedule:read</code> scope.
        </p>
      </section>
    );
  }
  const act = (work: () => Promise<unknown>, done: string, question?: string) => {
    setNotice(null);
    void action.act(async () => (await work(), setNotice(done)), question);
  };
  const path = (scheduleId: string) => ({ path: { scheduleId } });
  return (
    <section>
      <div className="heading">
        <h1>Schedules</h1>
        <span className={`live ${live ? 'on' : ''}`} aria-live="polite">
          {live ? 'Live' : 'Connecting…'}
        </span>
      </div>
      <p className="muted">
        An agent run on an interval or a cron expression, each firing exactly once (Temporal Schedules): in a new session each time, or as a turn of one
        session.
      </p>
      <ErrorNotice error={schedules.error ?? action.error} />
      {notice ? (
        <p className="notice good" role="status">
          {notice}
        </p>
      ) : null}
      {schedules.data && schedules.data.data.length > 0 ? (
        <table aria-label="Schedules">
          <thead>
            <tr>
              <th scope="col">Schedule</th>
              <th scope="col">Runs</th>
              <th scope="col">When</th>
              <th scope="col">State</th>
              <th scope="col">Next firings</th>
              <th scope="col">Recent firings</th>
              {mayWrite ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {schedules.data.data.map((schedule) => (
              <tr key={schedule.id}>
                <th scope="row">
                  {schedule.name ?? <code>{schedule.id.slice(0, 8)}</code>}
                  <div className="muted small">{schedule.message}</div>
                </th>
                <td>{whatRuns(schedule, agentNames)}</td>
                <td>
                  {timingText(schedule)}
                  <div className="muted small">overlap {schedule.overlap.replaceAll('_', ' ')}</div>
                </td>
                <td>
                  <StatusBadge status={schedule.paused ? 'paused' : 'active'} />
                </td>
                <td>
                  <NextFirings schedule={schedule} />
                </td>
                <td>
                  <RecentFirings schedule={schedule} />
                </td>
                {mayWrite ? (
                  <td className="actions">
                    <div className="actions-row">
                      {mayFire ? (
                        <button
                          type="button"
                          className="small"
                          disabled={action.busy}
                          onClick={() =>
                            act(
                              () => client.call('post', '/v1/projects/{projectId}/schedules/{scheduleId}/trigger', path(schedule.id)),
                              `${label(schedule)} fired: the firing shows under recent firings once it has run.`,
                            )
                          }
                        >
                          Run now
                        </button>
                      ) : null}
                      {schedule.paused ? (
                        <button
                          type="button"
                          className="small"
                          disabled={action.busy}
                          onClick={() =>
                            act(
                              () => client.call('post', '/v1/projects/{projectId}/schedules/{scheduleId}/unpause', path(schedule.id)),
                              `${label(schedule)} unpaused: it fires again from its next time.`,
                            )
                          }
                        >
                          Unpause
                        </button>
                      ) : (
                        <button
                          type="button"
                          className="small"
                          disabled={action.busy}
                          onClick={() =>
                            act(
                              () => client.call('post', '/v1/projects/{projectId}/schedules/{scheduleId}/pause', path(schedule.id)),
                              `${label(schedule)} paused: no firings until it is unpaused.`,
                            )
                          }
                        >
                          Pause
                        </button>
                      )}
                      <button
                        type="button"
                        className="small danger"
                        disabled={action.busy}
                        onClick={() =>
                          act(
                            () => client.call('delete', '/v1/projects/{projectId}/schedules/{scheduleId}', path(schedule.id)),
                            `${label(schedule)} deleted, with its Temporal Schedule.`,
                            `Delete ${label(schedule)}? It fires no more; the sessions it opened stay.`,
                          )
                        }
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : schedules.data ? (
        <p className="empty">No schedules yet.{mayFire ? ' Create one below: an agent, when it runs, and what it is asked.' : ''}</p>
      ) : schedules.loading ? (
        <p aria-busy="true">Loading schedules…</p>
      ) : null}
      {mayFire && agents.data ? (
        agents.data.length > 0 ? (
          <ScheduleForm agents={agents.data} onCreated={schedules.reload} />
        ) : (
          <p className="empty">
            Create an <Link to="/agents">agent</Link> first; then schedule it here.
          </p>
        )
      ) : null}
    </section>
  );
}

const label = (schedule: PublicSchedule) => (schedule.name ? `“${schedule.name}”` : `Schedule ${schedule.id.slice(0, 8)}`);

function whatRuns(schedule: PublicSchedule, agentNames: Map<string, string>) {
  const agent = agentNames.get(schedule.agentId) ?? schedule.agentId.slice(0, 8);
  const version = schedule.agentVersionId ? ' (pinned version)' : '';
  if (schedule.target === 'new_session')
    return (
      <>
        {agent}
        {version}
        <div className="muted small">a new session each firing</div>
      </>
    );
  return (
    <>
      {agent}
      {version}
      <div className="muted small">
        turns of <Link to={`/sessions/${schedule.sessionId}`}>session {schedule.sessionId?.slice(0, 8)}</Link>
        {schedule.ifBusy === 'skip' ? ', skipped while busy' : ', queued while busy'}
      </div>
    </>
  );
}

function NextFirings({ schedule }: { schedule: PublicSchedule }) {
  if (schedule.paused) return <span className="muted">none while paused</span>;
  if (schedule.nextFirings.length === 0)
    return (
      <span className="muted" aria-busy="true">
        being scheduled…
      </span>
    );
  return (
    <ul className="firings" aria-label={`Next firings of ${label(schedule)}`}>
      {schedule.nextFirings.slice(0, SHOWN).map((at) => (
        <li key={at}>
          <time dateTime={at}>{when(at)}</time>
        </li>
      ))}
    </ul>
  );
}

function RecentFirings({ schedule }: { schedule: PublicSchedule }) {
  if (schedule.recentFirings.length === 0) return <span className="muted">none yet</span>;
  return (
    <ul className="firings" aria-label={`Recent firings of ${label(schedule)}`}>
      {schedule.recentFirings.slice(0, SHOWN).map((firing) => (
        <li key={firing.id}>
          <StatusBadge status={firing.outcome} /> <time dateTime={firing.firedAt}>{when(firing.firedAt)}</time>
          {firing.sessionId ? (
            <>
              {' '}
              · <Link to={`/sessions/${firing.sessionId}`}>session</Link>
            </>
          ) : null}
          {firing.errorCode ? (
            <div className="muted small">
              {firing.errorCode}
              {firing.errorMessage ? `: ${firing.errorMessage}` : ''}
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * Reads the list again when it is about to change without an event: a schedule still without
 * its next firings (being scheduled) in a moment, else at the soonest next firing (a skipped
 * firing makes no run, but moves the next times on).
 */
function useRecheck(schedules: PublicSchedule[], refresh: () => Promise<unknown>) {
  const waiting = schedules.some((schedule) => !schedule.paused && schedule.nextFirings.length === 0);
  const soonest = Math.min(
    ...schedules.filter((schedule) => !schedule.paused).map((schedule) => (schedule.nextFirings[0] ? Date.parse(schedule.nextFirings[0]) : Infinity)),
  );
  // Rechecks while waiting back off (1, 2, 4… up to 30 s): a Temporal Schedule that is slow to
  // appear is not asked for every second.
  const waits = useRef(0);
  const [checks, setChecks] = useState(0);
  useEffect(() => {
    if (!waiting) waits.current = 0;
    const delay = waiting
      ? Math.min(30_000, PENDING_RECHECK_MS * 2 ** waits.current++)
      : Number.isFinite(soonest)
        ? Math.max(PENDING_RECHECK_MS, soonest - Date.now() + PENDING_RECHECK_MS)
        : null;
    // Past a day the timer is not worth keeping: events and the next visit catch up.
    if (delay === null || delay > 86_400_000) return;
    const timer = setTimeout(() => {
      void refresh();
      setChecks((count) => count + 1);
    }, delay);
    return () => clearTimeout(timer);
  }, [waiting, soonest, refresh, checks]);
}
