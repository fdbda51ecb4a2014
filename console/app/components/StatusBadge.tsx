/** A run or session state, tool call or approval status, schedule state or firing outcome, as a labelled badge. */
export function StatusBadge({ status }: { status: string }) {
  const tone = ['completed', 'succeeded', 'approved', 'active', 'started'].includes(status)
    ? 'good'
    : ['failed', 'failing', 'timed_out', 'denied', 'expired', 'cancelled', 'revoked'].includes(status)
      ? 'bad'
      : [
            'waiting_for_tool',
            'waiting_for_approval',
            'pending',
            'pending_approval',
            'retry_scheduled',
            'deprecated',
            'disabled',
            'paused',
            'skipped',
            'enqueued',
          ].includes(status)
        ? 'wait'
        : // A session before its first run is neither progress nor trouble: the plain badge.
          status === 'idle'
          ? 'idle'
          : 'busy';
  return <span className={`badge ${tone}`}>{status.replaceAll('_', ' ')}</span>;
}
