import type { Logger } from '../config/logger.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { PRODUCT_EVENTS_CHANNEL } from '../services/kernel/events/index.ts';
import type { ProductEventRow } from '../services/kernel/events/index.ts';
import { latestProjectPosition, latestProjectPositions, readProductEvents, readSessionEvents } from '../services/kernel/events/index.ts';

/**
 * A live, resumable read of one project's event log: yields batches of events after the
 * position it started from, each position exactly once, in increasing order, until closed.
 */
export type EventSubscription = AsyncIterable<ProductEventRow[]> & {
  /** The last position handed out (the start position before the first batch). */
  readonly position: bigint;
  /** Ends the iteration; a pending `next()` resolves as done. Idempotent. */
  close(): void;
};

/** The one shared reader of the product event log per process (SSE feed, later webhooks). */
export type ProjectEventTail = {
  /** Starts listening for commit hints and the safety poll. */
  start(): Promise<void>;
  /** Stops listening and ends every open subscription. */
  stop(): Promise<void>;
  /**
   * Subscribes to a project's events after `afterPosition` (exclusive; 0 = from the beginning),
   * or to one session's: then only its events are handed out, and catching up reads through the
   * session index, never the rest of the project's log.
   */
  subscribe(projectId: string, afterPosition: bigint, options?: { sessionId?: string }): Promise<EventSubscription>;
  /**
   * Calls `onCommit` whenever the project's log may have grown, reading no event: on each commit
   * hint, and when the safety poll finds the project past what it saw last. For a consumer that
   * needs to know only that events committed (the webhook dispatcher), so that a busy project
   * does not cost it a read of every new event. `close` is idempotent.
   */
  watch(projectId: string, onCommit: () => void): { close(): void };
  /** Counters for metrics and tests. */
  stats(): ProjectEventTailStats;
};

export type ProjectEventTailStats = {
  /** Projects with a live fetcher. */
  projects: number;
  subscribers: number;
  /** Times a subscriber fell behind the shared feed (slow consumer or gap) and read on its own. */
  droppedToDatabase: number;
};

export type ProjectEventTailOptions = {
  database: DatabaseHandle;
  logger: Logger;
  /** Safety poll of the project counters, so a lost notification only delays delivery. */
  pollIntervalMs?: number;
  /** Rows per database read, for the shared fetcher and for catching-up subscribers. */
  pageSize?: number;
  /** Events a subscriber may hold unconsumed before it is dropped to reading on its own. */
  maxBufferedEvents?: number;
};

/** One fetcher per project with subscribers: reads after its high-water mark and fans out. */
type ProjectFeed = {
  projectId: string;
  /** Last position fanned out to subscribers. */
  highWater: bigint;
  subscribers: Set<Subscriber>;
  fetching: boolean;
  /** Woken while fetching: fetch again once the current read is done. */
  again: boolean;
};

type Subscriber = {
  feed: ProjectFeed;
  /** Only this session's events, when set. */
  sessionId: string | null;
  /** The consumer has every (matching) event up to this position. */
  delivered: bigint;
  /** Last position the shared feed offered, matching or not (`delivered` while behind). */
  seen: bigint;
  /** Shared (matching) events not yet consumed: all of those after `delivered` up to `seen` (empty while behind). */
  buffer: ProductEventRow[];
  /** Reading pages from the database on its own until it reaches the feed's high-water mark. */
  behind: boolean;
  closed: boolean;
  wake: (() => void) | null;
};

/**
 * Creates the shared event tail. Design: NOTIFY on `svc_product_events` (and a slow poll of the
 * counters, in case a notification is lost) wakes a project's single fetcher, which reads the
 * new events once and hands the same row objects to every subscriber's bounded buffer.
 * Positions are gap-free, so a subscriber that is behind (resumed from an old cursor, or too slow
 * and dropped) notices by position arithmetic and pages from the database with its own reads
 * until it reaches the shared tail again. Memory stays bounded per subscriber.
 */
export function createProjectEventTail(options: ProjectEventTailOptions): ProjectEventTail {
  const { database, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 3000;
  const pageSize = options.pageSize ?? 500;
  const maxBufferedEvents = options.maxBufferedEvents ?? 1000;
  const feeds = new Map<string, { feed: ProjectFeed; ready: Promise<void> }>();
  /** Watchers by project, with the position the safety poll saw last (null before its first look). */
  const watches = new Map<string, { callbacks: Set<() => void>; polled: bigint | null }>();
  let running = false;
  let unlisten: (() => Promise<void>) | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  let polling = false;
  let droppedToDatabase = 0;

  const wakeSubscriber = (subscriber: Subscriber) => {
    const wake = subscriber.wake;
    subscriber.wake = null;
    wake?.();
  };

  const dropToDatabase = (subscriber: Subscriber) => {
    droppedToDatabase += 1;
    subscriber.behind = true;
    subscriber.buffer = [];
    subscriber.seen = subscriber.delivered;
    wakeSubscriber(subscriber);
  };

  /** Appends the (matching) part of a contiguous batch the subscriber has not seen yet. */
  const offer = (subscriber: Subscriber, rows: ProductEventRow[]) => {
    if (subscriber.behind || subscriber.closed || rows.length === 0) return;
    const held = subscriber.seen;
    const skip = held - rows[0]!.projectPosition + 1n;
    const start = skip <= 0n ? 0 : skip >= BigInt(rows.length) ? rows.length : Number(skip);
    if (start === rows.length) return;
    const fresh = rows.slice(start);
    const matching = subscriber.sessionId === null ? fresh : fresh.filter((row) => row.sessionId === subscriber.sessionId);
    if (fresh[0]!.projectPosition !== held + 1n || subscriber.buffer.length + matching.length > maxBufferedEvents) {
      dropToDatabase(subscriber);
      return;
    }
    subscriber.seen = fresh.at(-1)!.projectPosition;
    if (matching.length === 0) {
      // Nothing of its session: it has everything up to here already.
      if (subscriber.buffer.length === 0) subscriber.delivered = subscriber.seen;
      return;
    }
    for (const row of matching) subscriber.buffer.push(row);
    wakeSubscriber(subscriber);
  };

  const isCurrent = (feed: ProjectFeed) => running && feeds.get(feed.projectId)?.feed === feed;

  /** Reads everything after the feed's high-water mark and fans it out; coalesces wake-ups. */
  const pump = async (feed: ProjectFeed): Promise<void> => {
    if (feed.fetching) {
      feed.again = true;
      return;
    }
    feed.fetching = true;
    try {
      do {
        feed.again = false;
        const rows = await readProductEvents({ db: database.db, input: { projectId: feed.projectId, afterPosition: feed.highWater, limit: pageSize } });
        if (rows.length === 0 || !isCurrent(feed)) continue;
        feed.highWater = rows.at(-1)!.projectPosition;
        for (const subscriber of feed.subscribers) offer(subscriber, rows);
        if (rows.length === pageSize) feed.again = true;
      } while (feed.again && isCurrent(feed));
    } catch (error) {
      // The next notification or poll retries from the same high-water mark.
      logger.warn('event tail read failed', { err: error, projectId: feed.projectId });
    } finally {
      feed.fetching = false;
    }
  };

  const notifyWatchers = (projectId: string) => {
    for (const onCommit of watches.get(projectId)?.callbacks ?? []) {
      try {
        onCommit();
      } catch (error) {
        logger.warn('event tail watcher failed', { err: error, projectId });
      }
    }
  };

  const onNotification = (projectId: string) => {
    notifyWatchers(projectId);
    const entry = feeds.get(projectId);
    if (entry)
      void entry.ready.then(
        () => pump(entry.feed),
        () => {},
      );
  };

  const poll = async () => {
    if (polling || (feeds.size === 0 && watches.size === 0)) return;
    polling = true;
    try {
      const latest = await latestProjectPositions(database.db, [...new Set([...feeds.keys(), ...watches.keys()])]);
      for (const [projectId, position] of latest) {
        const feed = feeds.get(projectId)?.feed;
        if (feed && position > feed.highWater) void pump(feed);
        const watch = watches.get(projectId);
        if (!watch) continue;
        // Past what the last poll saw: maybe a lost hint (or one already acted on: hints are cheap).
        if (watch.polled !== null && position > watch.polled) notifyWatchers(projectId);
        watch.polled = position;
      }
    } catch (error) {
      logger.warn('event tail poll failed', { err: error });
    } finally {
      polling = false;
    }
  };

  /** Adds a subscriber to the project's feed, creating the feed on first use. */
  const join = async (projectId: string, afterPosition: bigint, sessionId: string | null): Promise<Subscriber> => {
    for (;;) {
      const entry = feeds.get(projectId) ?? createFeed(projectId);
      await entry.ready;
      if (!running) throw new Error('The project event tail is stopped');
      // Its last subscriber may have left (removing it) while we waited: then start over.
      if (feeds.get(projectId) !== entry) continue;
      const { feed } = entry;
      const subscriber: Subscriber = {
        feed,
        sessionId,
        delivered: afterPosition,
        seen: afterPosition,
        buffer: [],
        behind: afterPosition < feed.highWater,
        closed: false,
        wake: null,
      };
      feed.subscribers.add(subscriber);
      return subscriber;
    }
  };

  /** A feed whose high-water mark starts at the committed tail; subscribers behind it catch up. */
  const createFeed = (projectId: string) => {
    const feed: ProjectFeed = { projectId, highWater: 0n, subscribers: new Set(), fetching: false, again: false };
    const ready = latestProjectPosition({ db: database.db, input: { projectId } }).then((position) => {
      feed.highWater = position;
      // A commit between that read and the first notification would otherwise wait for the poll.
      void pump(feed);
    });
    const entry = { feed, ready };
    feeds.set(projectId, entry);
    ready.catch(() => {
      if (feeds.get(projectId) === entry) feeds.delete(projectId);
    });
    return entry;
  };

  const unsubscribe = (subscriber: Subscriber) => {
    if (subscriber.closed) return;
    subscriber.closed = true;
    subscriber.buffer = [];
    const { feed } = subscriber;
    feed.subscribers.delete(subscriber);
    if (feed.subscribers.size === 0 && feeds.get(feed.projectId)?.feed === feed) feeds.delete(feed.projectId);
    wakeSubscriber(subscriber);
  };

  /**
   * One page of a subscriber's own catch-up read, advancing `delivered`. A session subscriber
   * reads through the session index; a page shorter than full holds every matching event up to
   * the feed's high-water mark as it was before the read (those positions had committed, and
   * positions commit in order), so it may skip ahead to that mark.
   */
  const readBehind = async (subscriber: Subscriber): Promise<ProductEventRow[]> => {
    const { feed } = subscriber;
    const input = { projectId: feed.projectId, afterPosition: subscriber.delivered, limit: pageSize };
    if (subscriber.sessionId === null) {
      const rows = await readProductEvents({ db: database.db, input });
      if (rows.length > 0) subscriber.delivered = rows.at(-1)!.projectPosition;
      return rows;
    }
    const highWater = feed.highWater;
    const rows = await readSessionEvents({ db: database.db, input: { ...input, sessionId: subscriber.sessionId } });
    const last = rows.at(-1)?.projectPosition ?? subscriber.delivered;
    subscriber.delivered = rows.length === pageSize || last > highWater ? last : highWater;
    return rows;
  };

  /** The next batch for the consumer, or null once closed. */
  const nextBatch = async (subscriber: Subscriber): Promise<ProductEventRow[] | null> => {
    const { feed } = subscriber;
    while (!subscriber.closed) {
      if (subscriber.buffer.length > 0) {
        const batch = subscriber.buffer;
        subscriber.buffer = [];
        subscriber.delivered = subscriber.seen;
        return batch;
      }
      if (subscriber.behind) {
        const rows = await readBehind(subscriber);
        if (subscriber.closed) break;
        // Rejoin the shared feed once our own reads have reached what it fans out; `offer`
        // skips whatever we have already seen, so overlap is harmless.
        subscriber.seen = subscriber.delivered;
        if (subscriber.delivered >= feed.highWater) subscriber.behind = false;
        if (rows.length > 0) return rows;
        continue;
      }
      await new Promise<void>((resolve) => {
        subscriber.wake = resolve;
      });
    }
    return null;
  };

  return {
    async start() {
      if (running) return;
      running = true;
      unlisten = await database.listen(PRODUCT_EVENTS_CHANNEL, onNotification);
      pollTimer = setInterval(() => void poll(), pollIntervalMs);
      pollTimer.unref();
    },

    async stop() {
      if (!running) return;
      running = false;
      if (pollTimer) clearInterval(pollTimer);
      pollTimer = null;
      for (const { feed } of [...feeds.values()]) {
        for (const subscriber of [...feed.subscribers]) unsubscribe(subscriber);
      }
      feeds.clear();
      watches.clear();
      await unlisten?.();
      unlisten = null;
    },

    stats() {
      let subscribers = 0;
      for (const { feed } of feeds.values()) subscribers += feed.subscribers.size;
      return { projects: feeds.size, subscribers, droppedToDatabase };
    },

    watch(projectId, onCommit) {
      if (!running) throw new Error('The project event tail is not started');
      let watch = watches.get(projectId);
      if (!watch) {
        watch = { callbacks: new Set(), polled: null };
        watches.set(projectId, watch);
      }
      const callback = () => onCommit();
      watch.callbacks.add(callback);
      const entry = watch;
      return {
        close() {
          entry.callbacks.delete(callback);
          if (entry.callbacks.size === 0 && watches.get(projectId) === entry) watches.delete(projectId);
        },
      };
    },

    async subscribe(projectId, afterPosition, options = {}) {
      if (!running) throw new Error('The project event tail is not started');
      if (afterPosition < 0n) throw new RangeError('An event position is never negative');
      const subscriber = await join(projectId, afterPosition, options.sessionId ?? null);
      return {
        get position() {
          return subscriber.delivered;
        },
        close: () => unsubscribe(subscriber),
        [Symbol.asyncIterator]: () => ({
          async next(): Promise<IteratorResult<ProductEventRow[]>> {
            const batch = await nextBatch(subscriber);
            return batch ? { value: batch, done: false } : { value: undefined, done: true };
          },
          async return(): Promise<IteratorResult<ProductEventRow[]>> {
            unsubscribe(subscriber);
            return { value: undefined, done: true };
          },
        }),
      };
    },
  };
}
