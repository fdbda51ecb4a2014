import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, productEvents, toolCalls } from '../../db/schema/index.ts';
import { RUN_WORKFLOW_TYPE, runWorkflowId } from '../../domain/runs/workflow.ts';
import { startRunApp } from '../support/run-app.ts';
import { addNumbersTool } from '../support/platform-tools.ts';

/** Long runs keep their history bounded: they continue as new at turn boundaries. */
let f: Awaited<ReturnType<typeof startRunApp>>;

const addNumbers = addNumbersTool;

beforeAll(async () => {
  f = await startRunApp({
    platformTools: { add_numbers: async ({ arguments: args }) => ({ status: 'success', value: { sum: (args as { a: number }).a + 1 } }) },
  });
}, 120_000);
afterAll(() => f?.close());

describe('continue-as-new', () => {
  it('a 50-round-trip run past a small history limit continues as new and settles once', async () => {
    for (let i = 0; i < 50; i++) f.fakes.vendor_a.reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: i, b: 1 } }] });
    f.fakes.vendor_a.reply({ text: 'Done adding.' });
    // timeoutMs a ceiling, not a bound: 50 round trips outlasted the 60 s default on a loaded host.
    const agent = await f.call('POST', '/agents', {
      name: 'Long',
      initialConfig: { systemPrompt: 'Add.', modelPreset: 'fast', tools: [addNumbers], limits: { maxTurns: 64, timeoutMs: 600_000 } },
    });
    const live = f.starter.target;
    f.starter.target = null; // start the workflow ourselves, with a small history limit
    const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Add fifty times.' });
    f.starter.target = live;
    const runId = session.body.latestRunId as string;
    const client = f.runtime.client.client;
    const first = await client.workflow.start(RUN_WORKFLOW_TYPE, {
      workflowId: runWorkflowId(runId),
      taskQueue: f.runtime.taskQueue,
      args: [{ runId, historyEventLimit: 120 }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    const run = await f.waitForRun(runId, undefined, 120_000);
    expect(run.state).toBe('completed');

    // More than one execution of run:<runId>, each with a bounded history.
    const executions = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${runWorkflowId(runId)}'` })) executions.push(execution);
    expect(executions.length).toBeGreaterThan(2);
    expect(executions.every((execution) => (execution.historyLength ?? 0) < 400)).toBe(true);
    expect(first.firstExecutionRunId).toBeTruthy();

    // Exactly once: one assistant message per turn, one tool call per round trip, no duplicate events.
    const assistant = await f.t.database.db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, runId), eq(messages.role, 'assistant')));
    expect(assistant).toHaveLength(51);
    expect(await f.t.database.db.select().from(toolCalls).where(eq(toolCalls.runId, runId))).toHaveLength(50);
    const runEvents = (await f.t.database.db.select().from(productEvents).where(eq(productEvents.aggregateId, runId))).map((e) => e.kind);
    expect(runEvents.filter((kind) => kind === 'run.completed')).toHaveLength(1);
    expect(runEvents.filter((kind) => kind === 'model.call_started')).toHaveLength(51);
  }, 180_000);

  it('a 200-turn run with the default limits stays under Temporal’s history warnings', async () => {
    // Temporal warns at 10,240 events and 10 MiB per execution (limit.historyCount.warn,
    // limit.historySize.warn); the run continues as new well before either.
    const TURNS = 200;
    for (let i = 0; i < TURNS - 1; i++) f.fakes.vendor_a.reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: i, b: 1 } }] });
    f.fakes.vendor_a.reply({ text: 'Done at last.' });
    const agent = await f.call('POST', '/agents', {
      name: 'Very long',
      initialConfig: { systemPrompt: 'Add.', modelPreset: 'fast', tools: [addNumbers], limits: { maxTurns: 256, timeoutMs: 600_000 } },
    });
    const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Add two hundred times.' });
    const runId = session.body.latestRunId as string;
    expect((await f.waitForRun(runId, undefined, 300_000)).state).toBe('completed');
    // Visibility lists the executions; their sizes come from describe() (visibility's copy of them can lag the close).
    const executions = [];
    for await (const listed of f.runtime.client.client.workflow.list({ query: `WorkflowId = '${runWorkflowId(runId)}'` })) {
      executions.push(await f.runtime.client.client.workflow.getHandle(listed.workflowId, listed.runId).describe());
    }
    const largest = {
      events: Math.max(...executions.map((execution) => execution.historyLength ?? 0)),
      bytes: Math.max(...executions.map((execution) => execution.historySize ?? 0)),
    };
    console.log(`200-turn run: ${executions.length} execution(s), largest history ${largest.events} events, ${(largest.bytes / 1024).toFixed(0)} KiB`);
    expect(largest.events).toBeGreaterThan(0);
    expect(largest.events).toBeLessThan(10_240);
    expect(largest.bytes).toBeLessThan(10 * 1024 * 1024);
    const assistant = await f.t.database.db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, runId), eq(messages.role, 'assistant')));
    expect(assistant).toHaveLength(TURNS);
  }, 360_000);
});
