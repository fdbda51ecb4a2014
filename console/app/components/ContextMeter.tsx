import type { SessionDetail } from '../../../client/src/index.ts';
import { formatTokens } from './money.ts';

type Row =
  | { kind: 'turn'; at: string; runId: string; turnId: string; inputTokens: number }
  | { kind: 'compaction'; at: string; entry: SessionDetail['debug']['compactions'][number] };

/**
 * How full the model's context is (docs/decisions/context-compaction.md): the input of the
 * latest model call against the model's window, a small bar per main-thread turn, and a mark
 * where each compaction happened, with its summary to read.
 */
export function ContextMeter({ session }: { session: SessionDetail }) {
  const { context, debug } = session;
  const turns = debug.modelInvocations
    .filter((invocation) => invocation.status === 'succeeded' && /^turn-\d+$/.test(invocation.turnId))
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
    .map((invocation) => ({
      kind: 'turn' as const,
      at: invocation.startedAt,
      runId: invocation.runId,
      turnId: invocation.turnId,
      inputTokens: invocation.inputTokens,
    }));
  // A compaction is made for a turn, before its call: it goes just before that turn's bar (the
  // turn's invocation row is older than the compaction, so time alone would misplace it).
  const forTurn = (row: { runId: string; turnId: string }) => (entry: SessionDetail['debug']['compactions'][number]) =>
    entry.runId === row.runId && entry.turnId === row.turnId;
  const rows: Row[] = turns.flatMap((turn) => [
    ...debug.compactions.filter(forTurn(turn)).map((entry) => ({ kind: 'compaction' as const, at: entry.createdAt, entry })),
    turn,
  ]);
  for (const entry of debug.compactions) {
    if (!turns.some((turn) => forTurn(turn)(entry))) rows.push({ kind: 'compaction', at: entry.createdAt, entry });
  }
  const scale = context.window ?? Math.max(1, ...turns.map((row) => (row.kind === 'turn' ? row.inputTokens : 0)));
  const share = (tokens: number) => `${Math.min(100, Math.round((tokens / scale) * 100))}%`;
  if (rows.length === 0) return <p className="muted">No model call yet.</p>;
  return (
    <div className="context-meter">
      <p>
        Last input {formatTokens(context.lastInputTokens ?? 0)} tokens
        {context.window ? ` of a ${formatTokens(context.window)}-token window (${share(context.lastInputTokens ?? 0)})` : ' (window unknown)'}
        {` · ${context.compactions} compaction${context.compactions === 1 ? '' : 's'}`}
      </p>
      <ol className="context-turns" aria-label="Context per turn">
        {rows.map((row) =>
          row.kind === 'turn' ? (
            <li key={`${row.runId}:${row.turnId}`}>
              <meter min={0} max={scale} value={row.inputTokens} aria-label={`${row.turnId}: ${formatTokens(row.inputTokens)} input tokens`} />{' '}
              <span className="small muted">
                {row.turnId} · {formatTokens(row.inputTokens)}
              </span>
            </li>
          ) : (
            <li key={`compaction-${row.entry.compaction}`} className="compaction">
              <details>
                <summary>
                  Compacted (#{row.entry.compaction}, {row.entry.reason === 'overflow' ? 'the model refused the input' : 'past the threshold'}):{' '}
                  {formatTokens(row.entry.tokensBefore)} → {formatTokens(row.entry.tokensAfter)} tokens, {row.entry.messagesCovered} messages summarized
                </summary>
                <pre className="summary">{row.entry.summary}</pre>
              </details>
            </li>
          ),
        )}
      </ol>
    </div>
  );
}
