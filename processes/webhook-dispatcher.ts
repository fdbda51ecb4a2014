import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../config/logger.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { eventWebhooks } from '../db/schema/index.ts';
import type { WebhookWakeReason } from '../domain/webhooks/workflow.ts';
import type { ProjectEventTail } from './project-event-tail.ts';
import { EVENT_WEBHOOKS_CHANNEL } from '../services/configuration/event-webhooks/index.ts';

export type WebhookTarget = { webhookId: string; projectId: string };

/** Starts the webhook's delivery workflow if needed and signals it (Temporal signal-with-start). */
export type WebhookWaker = (target: WebhookTarget, reason: WebhookWakeReason) => Promise<void>;

export type WebhookDispatcher = { start(): Promise<void>; stop(): Promise<void> };

type Known = { projectId: string; enabled: boolean; changeSequence: number };
type WatchedProject = { watch: { close(): void }; webhookIds: Set<string> };
type WakeState = { target: WebhookTarget; running: boolean; pending: WebhookWakeReason | null; lastWakeAt: number };

/**
 * The worker's link between the event log and the delivery workflows; the API needs no
 * Temporal connection for webhooks. It watches the webhooks table (NOTIFY from every change,
 * plus a slow poll in case one is lost) and wakes a webhook's workflow when the webhook is
 * created, changed or deleted; and it watches the shared project event tail of every project
 * with an enabled webhook (commit hints only, no event read), waking those workflows when events
 * commit. Wake-ups are hints — workflows re-read Postgres — so they are coalesced per webhook,
 * and a failed one is retried at the next refresh. Its first refresh after start wakes every
 * enabled webhook, which starts any workflow that should be running (the reconciler).
 */
export function createWebhookDispatcher(options: {
  database: DatabaseHandle;
  eventTail: ProjectEventTail;
  wake: WebhookWaker;
  logger: Logger;
  refreshIntervalMs?: number;
  /** Least time between two events hints to one webhook (the first after a pause goes at once). */
  minHintIntervalMs?: number;
}): WebhookDispatcher {
  const minHintIntervalMs = options.minHintIntervalMs ?? 100;
  const { database, eventTail, logger } = options;
  const known = new Map<string, Known>();
  const watched = new Map<string, WatchedProject>();
  const wakes = new Map<string, WakeState>();
  const retry = new Set<string>();
  let running = false;
  let refreshing: Promise<void> | null = null;
  let refreshAgain = false;
  let timer: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;

  const request = (target: WebhookTarget, reason: WebhookWakeReason) => {
    let state = wakes.get(target.webhookId);
    if (!state) {
      state = { target, running: false, pending: null, lastWakeAt: 0 };
      wakes.set(target.webhookId, state);
    }
    // A change outranks an events hint: both wake the workflow, a change also ends a back-off.
    state.pending = state.pending === 'changed' ? 'changed' : reason;
    if (!state.running) void drain(state);
  };

  const drain = async (state: WakeState) => {
    state.running = true;
    while (state.pending && running) {
      // Events hints closer together than the interval are merged: a busy project then costs
      // its workflows a few signals a second, not one per commit. Changes go at once.
      const wait = state.lastWakeAt + minHintIntervalMs - Date.now();
      if (state.pending === 'events' && wait > 0) await sleep(wait);
      const reason = state.pending;
      if (!reason || !running) break;
      state.pending = null;
      state.lastWakeAt = Date.now();
      try {
        await options.wake(state.target, reason);
      } catch (error) {
        logger.warn('webhook wake-up failed; retrying at the next refresh', { err: error, webhookId: state.target.webhookId });
        retry.add(state.target.webhookId);
      }
    }
    state.running = false;
  };

  const watch = (projectId: string, webhookIds: Set<string>) => {
    // Commit hints only: the delivery reads the events itself, so the tail need not read them.
    const project: WatchedProject = {
      webhookIds,
      watch: eventTail.watch(projectId, () => {
        for (const webhookId of project.webhookIds) request({ webhookId, projectId }, 'events');
      }),
    };
    watched.set(projectId, project);
    // Events committed before the watch began are picked up by this first hint.
    for (const webhookId of webhookIds) request({ webhookId, projectId }, 'events');
  };

  const refreshOnce = async () => {
    const rows = await database.db
      .select({ id: eventWebhooks.id, projectId: eventWebhooks.projectId, enabled: eventWebhooks.enabled, changeSequence: eventWebhooks.changeSequence })
      .from(eventWebhooks);
    const present = new Set<string>();
    const enabledByProject = new Map<string, Set<string>>();
    for (const row of rows) {
      present.add(row.id);
      const before = known.get(row.id);
      const changed = before ? before.changeSequence !== row.changeSequence || before.enabled !== row.enabled : row.enabled;
      if (changed || retry.delete(row.id)) request({ webhookId: row.id, projectId: row.projectId }, 'changed');
      known.set(row.id, { projectId: row.projectId, enabled: row.enabled, changeSequence: row.changeSequence });
      if (row.enabled) {
        const ids = enabledByProject.get(row.projectId) ?? new Set<string>();
        ids.add(row.id);
        enabledByProject.set(row.projectId, ids);
      }
    }
    for (const [webhookId, entry] of known) {
      if (present.has(webhookId)) continue;
      known.delete(webhookId);
      retry.delete(webhookId);
      wakes.delete(webhookId);
      // Deleted: a workflow waiting out a back-off ends now instead of at its next step.
      request({ webhookId, projectId: entry.projectId }, 'changed');
    }
    for (const [projectId, project] of watched) {
      const ids = enabledByProject.get(projectId);
      if (ids) project.webhookIds = ids;
      else {
        watched.delete(projectId);
        project.watch.close();
      }
    }
    for (const [projectId, ids] of enabledByProject) {
      if (!watched.has(projectId)) watch(projectId, ids);
    }
  };

  /** Serialized: a refresh asked for while one runs happens once more right after it. */
  const refresh = (): Promise<void> => {
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        refreshAgain = false;
        if (!running) break;
        try {
          await refreshOnce();
        } catch (error) {
          logger.warn('webhook dispatcher refresh failed', { err: error });
        }
      } while (refreshAgain);
      refreshing = null;
    })();
    return refreshing;
  };

  return {
    async start() {
      if (running) return;
      running = true;
      unlisten = await database.listen(EVENT_WEBHOOKS_CHANNEL, () => void refresh());
      timer = setInterval(() => void refresh(), options.refreshIntervalMs ?? 5_000);
      timer.unref();
      await refresh();
    },
    async stop() {
      if (!running) return;
      running = false;
      if (timer) clearInterval(timer);
      timer = null;
      await unlisten?.();
      unlisten = null;
      await refreshing;
      for (const project of watched.values()) project.watch.close();
      watched.clear();
      known.clear();
    },
  };
}
