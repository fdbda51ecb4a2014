import { RUN_STATES, type RunState } from '../../domain/runs/states.ts';
import type { DeltaFrame, MessageDeltaBus } from '../../processes/message-delta-bus.ts';
import type { ProjectEventTail } from '../../processes/project-event-tail.ts';
import { latestProjectPosition, type ProductEventRow } from '../../services/kernel/events/index.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import { getRun, type PublicRun } from '../../services/runtime/runs/index.ts';

/**
 * What a door hears of one run while it follows it: the run at each change of state (first, the
 * state it has when the following starts), and the reply being written, from the live-output
 * deltas. `text` is what is new; `replace` says it starts the reply over (the model began another
 * turn, or a retry dropped what was written).
 */
export type TurnUpdate = { kind: 'run'; run: PublicRun } | { kind: 'text'; text: string; replace: boolean };

export type TurnFollower = AsyncIterable<TurnUpdate> & { close(): void };

const STATE_KINDS = new Set(RUN_STATES.map((state: RunState) => `run.${state}`));

/**
 * Follows one run through the process's event tail and delta bus (the mechanisms of the session
 * streams): live output is subscribed first and the durable read starts at the log's end, so no
 * change between the two is missed; the run is read again on each of its state events, so what a
 * door reports is the committed row, never a guess from a payload. Ends when `close` is called;
 * the consumer decides which states end its interest.
 */
export function followRun(
  deps: { eventTail: ProjectEventTail; messageDeltas: MessageDeltaBus },
  ctx: ServiceContext,
  target: { projectId: string; sessionId: string; runId: string },
): TurnFollower {
  const deltas = deps.messageDeltas.subscribe(target.sessionId);
  let closed = false;
  let close = () => {
    closed = true;
    deltas.close();
  };
  async function* updates(): AsyncGenerator<TurnUpdate> {
    const after = await latestProjectPosition({ db: ctx.db, input: { projectId: target.projectId } });
    const subscription = await deps.eventTail.subscribe(target.projectId, after, { sessionId: target.sessionId });
    const closeDeltas = close;
    close = () => {
      closeDeltas();
      subscription.close();
    };
    if (closed) return close();
    const text = replyText(target.runId);
    try {
      yield { kind: 'run', run: await getRun({ ctx, input: { runId: target.runId } }) };
      const batches = subscription[Symbol.asyncIterator]();
      let durable: Promise<IteratorResult<ProductEventRow[]>> | null = null;
      while (!closed) {
        yield* text.of(deltas.take());
        durable ??= batches.next();
        const next = await Promise.race([durable, deltas.ready().then(() => null)]);
        if (next === null) continue;
        durable = null;
        if (next.done) return;
        const catchingUp = deltas.beforeDurable(next.value);
        if (catchingUp) {
          await catchingUp;
          yield* text.of(deltas.take());
        }
        if (next.value.some((row) => row.aggregateType === 'run' && row.aggregateId === target.runId && STATE_KINDS.has(row.kind)))
          yield { kind: 'run', run: await getRun({ ctx, input: { runId: target.runId } }) };
      }
    } finally {
      close();
    }
  }
  const iterable = updates();
  return { [Symbol.asyncIterator]: () => iterable, close: () => close() };
}

/** The text of the run's reply being written, from its delta frames: only what is new goes out. */
function replyText(runId: string) {
  let current: string | null = null;
  let length = 0;
  return {
    *of(frames: DeltaFrame[]): Generator<TurnUpdate> {
      for (const frame of frames) {
        if (frame.kind === 'reset') {
          if (frame.reset.runId !== runId) continue;
          current = null;
          length = 0;
          yield { kind: 'text', text: '', replace: true };
          continue;
        }
        const { delta } = frame;
        if (delta.runId !== runId) continue;
        const key = `${delta.turn}:${delta.attempt}`;
        if (key !== current || delta.offset === 0) {
          // A new turn's reply, or a catch-up of the whole text so far.
          const replace = key !== current || length > 0;
          current = key;
          length = delta.text.length;
          yield { kind: 'text', text: delta.text, replace };
          continue;
        }
        if (delta.offset > length) continue; // a gap: the next catch-up frame resends from 0
        const fresh = delta.text.slice(length - delta.offset);
        if (fresh === '') continue;
        length += fresh.length;
        yield { kind: 'text', text: fresh, replace: false };
      }
    },
  };
}
