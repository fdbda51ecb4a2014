import * as path from 'node:path';
import { IllegalStateError } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowsPath } from '../../temporal/worker.ts';
import * as workflows from '../../workflows/index.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { findSecrets, goldenHistories, HISTORIES_DIR, historyFromJson } from '../histories/histories.ts';

/**
 * Replays every golden history in test/histories/ against the workflow code as it is now: a
 * change that would break a running workflow fails here with the SDK's determinism error, and
 * needs `patched()` (test/histories/README.md). The histories are never re-recorded to pass.
 */
const histories = goldenHistories();
const logger = new DefaultLogger('WARN');
let bundle: WorkflowBundle;

beforeAll(async () => {
  // Quiet replay workers: the expected nondeterminism of the last test would log a Core warning;
  // a real failure's message is in the thrown error. Test files share processes (vitest.config.ts):
  // where an earlier file already created the process's one Runtime, that one serves.
  try {
    Runtime.install({ logger, shutdownSignals: [], telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch (error) {
    if (!(error instanceof IllegalStateError)) throw error;
  }
  bundle = await bundleWorkflowCode({ workflowsPath, logger });
}, 120_000);

const workflowTypeOf = (json: unknown) =>
  (json as { events: Array<{ workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }> }).events[0]
    ?.workflowExecutionStartedEventAttributes?.workflowType?.name;

describe('golden histories', () => {
  it('cover every workflow the worker runs', () => {
    expect(new Set(histories.map((history) => workflowTypeOf(history.json)))).toEqual(new Set(Object.keys(workflows)));
  });

  it.each(histories)('$name replays against the current workflow code', async ({ name, json }) => {
    await Worker.runReplayHistory({ workflowBundle: bundle, replayName: name }, historyFromJson(json), name);
  });

  it.each(histories)('$name holds no secret (provider key, whsec_ signing secret, svc_ API key)', ({ text }) => {
    expect(findSecrets(text)).toEqual([]);
  });

  it('the secret check reads inside payloads (base64)', () => {
    const planted = { apiKey: FAKE_KEYS.vendor_a, signingSecret: `whsec_${'A'.repeat(32)}`, key: `svc_${'b'.repeat(43)}` };
    const payload = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from(JSON.stringify(planted)).toString('base64') };
    const history = { events: [{ eventId: '1', activityTaskCompletedEventAttributes: { result: { payloads: [payload] } } }] };
    expect(findSecrets(JSON.stringify(history))).toEqual(['the fake vendor_a provider key', 'a webhook signing secret (whsec_)', 'an API key (svc_)']);
  });
});

describe('the replay net', () => {
  it('fails with a determinism error when runWorkflow gains a new first command', async () => {
    const changed = await bundleWorkflowCode({ workflowsPath: path.join(HISTORIES_DIR, 'fixtures', 'changed-run-workflow.ts'), logger });
    const oneTurn = histories.find((history) => history.name === 'run-one-turn')!;
    await expect(Worker.runReplayHistory({ workflowBundle: changed, replayName: 'changed' }, historyFromJson(oneTurn.json), 'changed')).rejects.toThrow(
      DeterminismViolationError,
    );
  }, 120_000);
});
