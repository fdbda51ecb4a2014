import type { SessionDetail } from '../../../client/src/index.ts';

type Bar = { key: string; lane: string; label: string; status: string; start: number; end: number | null };

/** The session's timing: run queue and execution, model calls, tool calls, approvals, delegated child runs and sandbox commands on one time axis. */
export function Waterfall({ session, now }: { session: SessionDetail; now: number }) {
  const at = (iso: string) => new Date(iso).getTime();
  const bars: Bar[] = [
    ...session.timeline.map((entry) => ({
      key: `t${entry.runId}${entry.entrySequence}`,
      lane: entry.kind === 'model_invocation' ? 'model call' : entry.kind,
      label: entry.kind === 'model_invocation' ? `turn ${entry.turnId?.slice(0, 8) ?? ''} attempt ${entry.attempt ?? 1}` : `run ${entry.runId.slice(0, 8)}`,
      status: entry.status,
      start: at(entry.startedAt),
      end: entry.completedAt ? at(entry.completedAt) : null,
    })),
    ...session.debug.toolCalls.map((call) => ({
      key: `c${call.id}`,
      lane: 'tool call',
      label: call.toolName,
      status: call.status,
      start: at(call.createdAt),
      end: call.completedAt ? at(call.completedAt) : null,
    })),
    ...session.debug.approvals.map((approval) => ({
      key: `a${approval.id}`,
      lane: 'approval',
      label: approval.toolName,
      status: approval.status,
      start: at(approval.createdAt),
      end: approval.decidedAt ? at(approval.decidedAt) : null,
    })),
    // Each child run of a delegation, queued to settled: a fan-out's children side by side.
    ...session.delegations.flatMap((delegation) =>
      delegation.childRuns.map((child) => ({
        key: `d${child.childRunId}`,
        lane: 'delegation',
        label: `${delegation.delegateKey} ${child.childRunId.slice(0, 8)}`,
        status: child.state,
        start: at(child.queuedAt),
        end: child.settledAt ? at(child.settledAt) : null,
      })),
    ),
    ...session.debug.sandboxCommands.map((command) => ({
      key: `s${command.id}`,
      lane: 'sandbox',
      label: command.toolName,
      status: command.completedAt ? 'done' : 'running',
      start: at(command.startedAt),
      end: command.completedAt ? at(command.completedAt) : null,
    })),
  ].sort((a, b) => a.start - b.start);
  if (bars.length === 0) return <p className="muted">No timing yet: the run has not started.</p>;
  const origin = bars[0]!.start;
  const finish = Math.max(...bars.map((bar) => bar.end ?? now), origin + 1);
  const span = finish - origin;
  return (
    <table className="waterfall" aria-label="Timeline">
      <thead>
        <tr>
          <th scope="col">What</th>
          <th scope="col">Status</th>
          <th scope="col">Duration</th>
          <th scope="col" className="axis">
            0 – {(span / 1000).toFixed(2)} s
          </th>
        </tr>
      </thead>
      <tbody>
        {bars.map((bar) => {
          const end = bar.end ?? now;
          const left = ((bar.start - origin) / span) * 100;
          const width = Math.max(0.5, ((end - bar.start) / span) * 100);
          return (
            <tr key={bar.key}>
              <th scope="row">
                <span className="lane">{bar.lane}</span> {bar.label}
              </th>
              <td>{bar.status.replaceAll('_', ' ')}</td>
              <td>{bar.end === null ? 'ongoing' : `${((end - bar.start) / 1000).toFixed(2)} s`}</td>
              <td className="track">
                <span className={`bar ${bar.lane.replace(' ', '-')}`} style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
