import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../config/logger.ts';
import { RUN_SIGNALS } from '../../domain/runs/workflow.ts';
import { connectTemporal } from '../../temporal/client.ts';
import { createTemporalRunStarter, START_DEADLINE_MS } from '../../temporal/run-starter.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

/**
 * Issue 45 item 12: the Temporal client's retries (temporal/bounded-retries.ts) end with the
 * connection. A call still waiting to try again when its client closes ends then, rather than
 * hanging, and no retry timer is left to throw "Channel has been shut down" afterwards; a start on
 * the worker's native connection answers by its deadline. (That a start on the client's own
 * connection gives up at its deadline is proved end to end: test/integration/api-crash.test.ts.)
 */
/** Starts in a row on the native connection, and what each may take past its deadline on a slow host. */
const NATIVE_TRIES = 5;
const DEADLINE_MARGIN_MS = 1_500;
let proxy: TcpProxy;
const logger = createLogger({ level: 'error', sink: () => {} });

beforeAll(async () => {
  proxy = await startTcpProxy(inject('temporal').address);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
});

describe('a Temporal call during an outage', () => {
  it(`a start on the worker's own connection (an eager start under npm start) answers by its deadline too, ${NATIVE_TRIES} times in a row`, async () => {
    const { namespace } = inject('temporal');
    const connection = await NativeConnection.connect({ address: proxy.address });
    const starter = createTemporalRunStarter({ client: new Client({ connection, namespace }), taskQueue: `eager-${randomUUID()}`, logger, eagerStart: true });
    proxy.cut();
    const took: number[] = [];
    try {
      for (let i = 0; i < NATIVE_TRIES; i++) {
        const began = Date.now();
        await expect(starter.start({ runId: randomUUID(), projectId: randomUUID(), sessionId: randomUUID(), agentId: randomUUID() })).rejects.toThrow();
        took.push(Date.now() - began);
      }
    } finally {
      // Closed before Temporal is back, so the calls its core still retries end without starting anything.
      await connection.close();
      proxy.restore();
    }
    // The bound is the subject: the native connection's core retried past the deadline (6-10 s).
    expect(took.filter((ms) => ms >= START_DEADLINE_MS + DEADLINE_MARGIN_MS)).toEqual([]);
  }, 120_000);

  it('a call keeps trying while Temporal is down, and is answered once it is back within its deadline', async () => {
    const { namespace } = inject('temporal');
    const temporal = await connectTemporal({ address: proxy.address, namespace });
    proxy.cut();
    try {
      const answer = temporal.client.withDeadline(Date.now() + 30_000, () => temporal.client.workflowService.getSystemInfo({}));
      await sleep(1_000);
      proxy.restore();
      await expect(answer).resolves.toHaveProperty('capabilities');
    } finally {
      proxy.restore();
      await temporal.close();
    }
  }, 60_000);

  it('a call waiting to try again ends at once when its abort signal fires', async () => {
    const { namespace } = inject('temporal');
    const temporal = await connectTemporal({ address: proxy.address, namespace });
    proxy.cut();
    try {
      const controller = new AbortController();
      const call = temporal.connection
        .withAbortSignal(controller.signal, () => temporal.client.workflowService.getSystemInfo({}))
        .then(
          () => 'answered',
          (error: { code?: number }) => error.code,
        );
      await sleep(700);
      controller.abort();
      // gRPC's CANCELLED (1), well before the next try would have come.
      expect(await Promise.race([call, sleep(1_000).then(() => 'still waiting')])).toBe(1);
    } finally {
      proxy.restore();
      await temporal.close();
    }
  }, 60_000);

  it('a call still trying again when its client closes ends then, and leaves no retry timer to throw afterwards', async () => {
    const { namespace } = inject('temporal');
    const closing = await connectTemporal({ address: proxy.address, namespace });
    const starter = createTemporalRunStarter({ client: closing.client, taskQueue: `closing-${randomUUID()}`, logger });
    const thrown: unknown[] = [];
    const record = (error: unknown) => void thrown.push(error);
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
    proxy.cut();
    try {
      // A wake-up signal has no deadline of its own: it tries again for as long as the back-off allows.
      const signal = starter.notify(randomUUID(), RUN_SIGNALS.toolResultSubmitted).then(
        () => 'answered',
        () => 'refused',
      );
      await sleep(700);
      await closing.close();
      expect(await Promise.race([signal, sleep(1_000).then(() => 'still waiting')])).toBe('refused');
      // Past the longest wait between tries (5 s, plus a fifth of jitter): a timer left behind has fired by now.
      await sleep(6_500);
      expect(thrown).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
      process.off('unhandledRejection', record);
      proxy.restore();
    }
  }, 60_000);
});
