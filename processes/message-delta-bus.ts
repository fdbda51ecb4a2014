import { randomBytes } from 'node:crypto';
import type { Logger } from '../config/logger.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { EVENT_KINDS } from '../domain/runs/events.ts';
import { splitDelta, type DeltaSignal, type MessageDelta, type MessageDeltaReset, type StreamingTurnKey } from '../domain/runs/message-deltas.ts';

/** Channel of the delta signals between worker and API processes (PostgreSQL). */
export const MESSAGE_DELTAS_CHANNEL = 'svc_message_deltas';
/** A NOTIFY payload must stay under 8,000 bytes. */
const MAX_SIGNAL_BYTES = 7000;
/** A streaming turn nobody has heard of for this long is forgotten (its worker died, no retry came). */
const IDLE_TURN_MS = 15 * 60_000;
/** How long a reply's message waits for its last deltas when the listener is slow or reconnecting. */
const HEARD_TIMEOUT_MS = 2000;

/** What a session stream receives: deltas and resets of the session's turns. */
export type DeltaFrame = { kind: 'delta'; delta: MessageDelta } | { kind: 'reset'; reset: MessageDeltaReset };

/**
 * One session's live output for one reader. Bounded: when more than `maxQueued` frames wait
 * unread, the queued deltas are dropped (resets are kept) and the next read starts with a
 * catch-up delta per streaming turn (offset 0, the whole text so far).
 */
export type DeltaSubscription = {
  /** Frames ready now (empty when none); marks them read. */
  take(): DeltaFrame[];
  /** Resolves when a frame is ready (at once when one is), or when closed. */
  ready(): Promise<void>;
  /**
   * Call with a durable batch just read, before sending it. When it commits an assistant message,
   * resolves once this process has heard every signal sent before the batch was read (so `take`
   * then holds the reply's last deltas, which must go out ahead of its message); null otherwise.
   */
  beforeDurable(rows: ReadonlyArray<DurableEvent>): Promise<void> | null;
  close(): void;
};

/** What `beforeDurable` looks at in a product event. */
export type DurableEvent = { kind: string; publicPayload: Record<string, unknown> };

export type MessageDeltaBus = {
  /** Listens for signals from other processes (PostgreSQL) and starts the idle sweep. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A worker's handle on one streaming turn (an attempt of a main-thread model turn). */
  turn(key: StreamingTurnKey): TurnPublisher;
  /** An API process's reader of one session's live output; begins with a catch-up. */
  subscribe(sessionId: string, options?: { maxQueued?: number }): DeltaSubscription;
  stats(): { streamingTurns: number; sessions: number; subscribers: number };
};

/** Publishes one attempt's text as it arrives; never throws (live output is best effort). */
export type TurnPublisher = {
  /** Sent at the end of this turn of the event loop, with the pieces that arrive in the same turn. */
  text(piece: string): void;
  /** The attempt was abandoned after sending text (a retry follows, or a crash is being recovered). */
  reset(): void;
  /** Everything published so far has been handed to the transport (call before committing the message). */
  flush(): Promise<void>;
  /**
   * For the transaction that commits the turn's message: the text not sent yet and the turn's end,
   * as NOTIFYs for it to hold (`holdNotice`), delivered with its commit and never without it; what
   * was sent before has been handed to the transport. In-process (PGlite) the text is delivered
   * now and nothing is returned (`end` follows the commit).
   */
  commitNotices(): Promise<Array<{ channel: string; payload: string }>>;
  /** The turn's message committed: API processes forget its text (nothing more when `commitNotices` carried the end). */
  end(): void;
};

type StreamingTurn = StreamingTurnKey & { stream: string | undefined; text: string; complete: boolean; touchedAt: number };

type Subscriber = {
  sessionId: string;
  queue: DeltaFrame[];
  maxQueued: number;
  /** Set when queued deltas were dropped (or at the start): the next take begins with a catch-up. */
  catchUp: boolean;
  wake: (() => void) | null;
  closed: boolean;
};

/**
 * The one carrier of live model output. On PostgreSQL a worker sends each signal as a NOTIFY on
 * its own connection (in order) and every API process LISTENs; on the embedded default (PGlite, one
 * process) signals are delivered in-process. Every API process keeps the text of each turn being
 * streamed (for catch-up) and fans signals out to that session's subscribers. Nothing is stored.
 */
export function createMessageDeltaBus(options: { database: DatabaseHandle; logger: Logger; now?: () => number }): MessageDeltaBus {
  const { database, logger } = options;
  const now = options.now ?? Date.now;
  const inProcess = database.driver === 'pglite';
  const turns = new Map<string, StreamingTurn>();
  const sessions = new Map<string, Set<Subscriber>>();
  let unlisten: (() => Promise<void>) | null = null;
  let sweep: NodeJS.Timeout | null = null;
  // NOTIFYs sent and not yet acknowledged. They are pipelined on the notifier's one connection
  // (sent in call order without waiting for each answer), so order holds and no signal waits
  // behind another run's round trip.
  const inFlight = new Set<Promise<void>>();
  // `heard()`: this process's own channel (on the same listening connection as the signals, so
  // delivered in order with them), the marks sent and not yet heard back, and the mark the calls of
  // this turn of the event loop share (one NOTIFY for every reader a commit wakes).
  const markChannel = `${MESSAGE_DELTAS_CHANNEL}_mark_${randomBytes(6).toString('hex')}`;
  const marks = new Map<string, () => void>();
  let nextMark: Promise<void> | null = null;
  let markCount = 0;
  let unlistenMarks: (() => Promise<void>) | null = null;

  const wake = (subscriber: Subscriber) => {
    const resolve = subscriber.wake;
    subscriber.wake = null;
    resolve?.();
  };

  const fanOut = (sessionId: string, frame: DeltaFrame) => {
    for (const subscriber of sessions.get(sessionId) ?? []) {
      if (subscriber.closed) continue;
      if (frame.kind === 'reset') subscriber.queue.push(frame);
      else if (!subscriber.catchUp) {
        if (subscriber.queue.length >= subscriber.maxQueued) {
          // A slow reader: drop its queued deltas, keep resets, and catch it up on its next read.
          subscriber.queue = subscriber.queue.filter((queued) => queued.kind === 'reset');
          subscriber.catchUp = true;
        } else subscriber.queue.push(frame);
      }
      wake(subscriber);
    }
  };

  const resetTurn = (turn: StreamingTurn) => {
    turns.delete(turn.runId);
    if (turn.text.length > 0) fanOut(turn.sessionId, { kind: 'reset', reset: { runId: turn.runId, turn: turn.turn, attempt: turn.attempt } });
  };

  /** Applies a signal to this process's view of the streaming turns and tells the subscribers. */
  const receive = (signal: DeltaSignal) => {
    const known = turns.get(signal.runId);
    const sameAttempt = known && known.turn === signal.turn && known.attempt === signal.attempt;
    // Another publication of the attempt followed here, not starting over: a dead worker's signals
    // that its connection delivered after its retry began (its backlog). Only a fresh start
    // (offset 0) replaces the publication followed.
    const startsOver = signal.kind === 'delta' && signal.offset === 0;
    if (sameAttempt && known.stream !== undefined && signal.stream !== undefined && signal.stream !== known.stream && !startsOver) return;
    if (signal.kind === 'end') {
      if (known && known.turn <= signal.turn) turns.delete(signal.runId);
      return;
    }
    if (signal.kind === 'reset') {
      if (known && known.turn === signal.turn) resetTurn(known);
      return;
    }
    let turn = known;
    // Another attempt or turn, or the same attempt starting over (its activity was retried after a
    // crash): what was streamed before is void.
    if (turn && (!sameAttempt || (signal.offset === 0 && (turn.text.length > 0 || signal.stream !== turn.stream)))) {
      // Another attempt of the same turn voids its text; a later turn means the last one ended
      // (its `end` was missed), and its committed message stands.
      if (turn.turn === signal.turn) resetTurn(turn);
      else turns.delete(turn.runId);
      turn = undefined;
    }
    if (!turn) {
      turn = {
        projectId: signal.projectId,
        sessionId: signal.sessionId,
        runId: signal.runId,
        turn: signal.turn,
        attempt: signal.attempt,
        stream: signal.stream,
        text: '',
        complete: signal.offset === 0,
        touchedAt: now(),
      };
      turns.set(signal.runId, turn);
    }
    turn.touchedAt = now();
    if (!turn.complete) return; // joined mid-turn (this process started late): no exact text to offer
    if (signal.offset > turn.text.length) {
      // A lost signal: the text here is no longer exact, so stop offering it until the next turn.
      turn.complete = false;
      return;
    }
    const fresh = signal.text.slice(turn.text.length - signal.offset);
    if (fresh.length === 0) return;
    const offset = turn.text.length;
    turn.text += fresh;
    fanOut(turn.sessionId, { kind: 'delta', delta: { runId: turn.runId, turn: turn.turn, attempt: turn.attempt, offset, text: fresh } });
  };

  const send = (signal: DeltaSignal) => {
    if (inProcess) {
      receive(signal);
      return;
    }
    for (const piece of signal.kind === 'delta' ? splitDelta(signal, MAX_SIGNAL_BYTES) : [signal]) {
      const sent = database.notify(MESSAGE_DELTAS_CHANNEL, JSON.stringify(piece)).catch((error: unknown) => {
        // Live output is best effort; the durable message still commits.
        logger.warn('a live output signal could not be sent', { err: error, runId: signal.runId });
      });
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
    }
  };

  const flush = async () => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  };

  const sendMark = (resolve: () => void) => {
    nextMark = null;
    const mark = String((markCount += 1));
    const settle = () => {
      clearTimeout(timer);
      marks.delete(mark);
      resolve();
    };
    // After a stall of this process longer than the wait (a long GC, a starved CPU), the expired
    // timer runs before the socket is read: settle only after the reads that are due (setImmediate
    // runs after the poll phase), so the signals and the mark that arrived meanwhile come first.
    const timer = setTimeout(() => setImmediate(settle), HEARD_TIMEOUT_MS);
    marks.set(mark, settle);
    database.notify(markChannel, mark).catch(settle);
  };

  /**
   * Resolves once this process has heard every signal sent (by any process) before the call: a
   * NOTIFY to itself, which PostgreSQL delivers after every notification committed before it. At
   * most `HEARD_TIMEOUT_MS` (a listener reconnecting loses it); at once in-process.
   */
  const heard = (): Promise<void> => {
    if (inProcess || !unlistenMarks) return Promise.resolve();
    nextMark ??= new Promise<void>((resolve) => setImmediate(() => sendMark(resolve)));
    return nextMark;
  };

  return {
    async start() {
      if (!inProcess && !unlisten) {
        unlisten = await database.listen(MESSAGE_DELTAS_CHANNEL, (payload) => {
          try {
            receive(JSON.parse(payload) as DeltaSignal);
          } catch (error) {
            logger.warn('an unreadable live output signal was ignored', { err: error });
          }
        });
        unlistenMarks = await database.listen(markChannel, (mark) => marks.get(mark)?.());
      }
      sweep ??= setInterval(() => {
        const cutoff = now() - IDLE_TURN_MS;
        for (const turn of [...turns.values()]) if (turn.touchedAt < cutoff) turns.delete(turn.runId);
      }, 60_000);
      sweep.unref();
    },

    async stop() {
      if (sweep) clearInterval(sweep);
      sweep = null;
      await flush();
      await unlisten?.();
      unlisten = null;
      await unlistenMarks?.();
      unlistenMarks = null;
      for (const settle of [...marks.values()]) settle();
      for (const subscribers of sessions.values()) for (const subscriber of subscribers) subscriber.closed = true;
      for (const subscribers of sessions.values()) for (const subscriber of subscribers) wake(subscriber);
      sessions.clear();
      turns.clear();
    },

    turn(key) {
      let offset = 0;
      const stream = randomBytes(6).toString('hex');
      // Text that arrived in this turn of the event loop, sent as one signal at its end (or held
      // by the commit that ends the turn): a reply that arrives whole costs no NOTIFY of its own.
      let unsent: { offset: number; text: string } | null = null;
      let ended = false;
      const sendUnsent = () => {
        if (!unsent) return;
        send({ ...key, stream, kind: 'delta', offset: unsent.offset, text: unsent.text });
        unsent = null;
      };
      return {
        text(piece) {
          if (piece.length === 0 || ended) return;
          if (unsent) unsent.text += piece;
          else {
            unsent = { offset, text: piece };
            setImmediate(sendUnsent);
          }
          offset += piece.length;
        },
        reset() {
          unsent = null;
          send({ ...key, stream, kind: 'reset' });
          offset = 0;
        },
        async flush() {
          sendUnsent();
          await flush();
        },
        async commitNotices() {
          if (inProcess) {
            sendUnsent();
            return [];
          }
          const signals: DeltaSignal[] = unsent
            ? splitDelta({ ...key, stream, kind: 'delta', offset: unsent.offset, text: unsent.text }, MAX_SIGNAL_BYTES)
            : [];
          unsent = null;
          ended = true;
          // The signals sent before must reach listeners ahead of these (they go at the commit).
          await flush();
          return [...signals, { ...key, stream, kind: 'end' as const }].map((signal) => ({ channel: MESSAGE_DELTAS_CHANNEL, payload: JSON.stringify(signal) }));
        },
        end() {
          if (ended) return;
          ended = true;
          send({ ...key, stream, kind: 'end' });
        },
      };
    },

    subscribe(sessionId, subscribeOptions = {}) {
      const subscriber: Subscriber = { sessionId, queue: [], maxQueued: subscribeOptions.maxQueued ?? 256, catchUp: true, wake: null, closed: false };
      let set = sessions.get(sessionId);
      if (!set) sessions.set(sessionId, (set = new Set()));
      set.add(subscriber);
      const catchUp = (): DeltaFrame[] =>
        [...turns.values()]
          .filter((turn) => turn.sessionId === sessionId && turn.complete && turn.text.length > 0)
          .map((turn) => ({ kind: 'delta', delta: { runId: turn.runId, turn: turn.turn, attempt: turn.attempt, offset: 0, text: turn.text } }));
      return {
        take() {
          if (subscriber.closed) return [];
          const frames = subscriber.queue;
          subscriber.queue = [];
          if (!subscriber.catchUp) return frames;
          subscriber.catchUp = false;
          // Resets first (they void text the reader may hold), then the whole text of each turn so far.
          return [...frames.filter((frame) => frame.kind === 'reset'), ...catchUp()];
        },
        ready() {
          const hasCatchUp = subscriber.catchUp && catchUp().length > 0;
          if (subscriber.closed || subscriber.queue.length > 0 || hasCatchUp) return Promise.resolve();
          return new Promise<void>((resolve) => {
            subscriber.wake = resolve;
          });
        },
        beforeDurable(rows) {
          return rows.some((row) => row.kind === EVENT_KINDS.messageCreated && row.publicPayload.role === 'assistant') ? heard() : null;
        },
        close() {
          if (subscriber.closed) return;
          subscriber.closed = true;
          subscriber.queue = [];
          set.delete(subscriber);
          if (set.size === 0 && sessions.get(sessionId) === set) sessions.delete(sessionId);
          wake(subscriber);
        },
      };
    },

    stats() {
      let subscribers = 0;
      for (const set of sessions.values()) subscribers += set.size;
      return { streamingTurns: turns.size, sessions: sessions.size, subscribers };
    },
  };
}
