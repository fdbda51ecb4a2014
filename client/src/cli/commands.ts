import { readFile, writeFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { ApiError } from '../errors.ts';
import type {
  Context,
  ForkedSession,
  PendingTurn,
  PendingWork,
  PublicAgent,
  PublicApproval,
  PublicSessionListItem,
  RestorePreview,
  RestoreResult,
} from '../api-types.ts';
import { LiveText, runToolCall, SETTLED_RUN_STATES, type ProductEvent, type ProjectClient, type Run } from '../index.ts';
import { Transport } from '../transport.ts';
import {
  agentIdOf,
  argument,
  clientOf,
  option,
  optionalNumber,
  optionalOption,
  print,
  UsageError,
  type Command,
  type CommandContext,
} from './command-context.ts';
import { saveCredentials } from './credentials.ts';
import { amount, count, spendOf } from './format.ts';
import { RunProgress } from './progress.ts';
import { SCHEDULE_COMMANDS } from './schedules.ts';
import { USAGE_COMMANDS } from './usage.ts';

const IF_BUSY = ['reject', 'enqueue', 'interrupt'] as const;
type IfBusy = (typeof IF_BUSY)[number];
/** `--if-busy`: what a turn sent while the session's run is still going does (the service's default is reject). */
const ifBusyOf = (context: CommandContext): IfBusy | undefined => {
  const value = context.options['if-busy'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(IF_BUSY as readonly string[]).includes(value))
    throw new UsageError(`--if-busy is enqueue, interrupt or reject (not ${JSON.stringify(value)})`);
  return value as IfBusy;
};

/** `--max-cost`/`--max-tokens`: a session's budget (replaces the one it had); neither given: none. */
function budgetOf(context: CommandContext): { maxCost?: number; maxTokens?: number } | undefined {
  const maxCost = optionalNumber(context, 'max-cost');
  const maxTokens = optionalNumber(context, 'max-tokens', { integer: true });
  if (maxCost === undefined && maxTokens === undefined) return undefined;
  return { ...(maxCost !== undefined ? { maxCost } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}) };
}

function describeBudget(budget: { maxCost: number | null; maxTokens: number | null } | null): string {
  const limits = [
    budget?.maxCost != null ? `at most ${amount(budget.maxCost)} cost` : null,
    budget?.maxTokens != null ? `at most ${count(budget.maxTokens)} tokens` : null,
  ];
  return limits.filter(Boolean).join(', ') || 'none';
}

const describePrincipal = (context: Context) => `${context.principal.displayName ?? context.principal.subject} (${context.principal.kind})`;

/** What an event line adds to its kind: the tool, and the id to answer or decide with. */
function describeEvent(event: ProductEvent): string {
  const payload = event.publicPayload;
  const tool = typeof payload.toolName === 'string' ? `  ${payload.toolName}` : '';
  const answerable = event.kind === 'tool_call.created' || event.kind === 'tool_call.pending';
  if (answerable && payload.owner === 'caller' && payload.status === 'pending') return `${tool}  (svc tools answer ${event.aggregateId} --value <json>)`;
  if (event.kind === 'approval.requested') return `${tool}  (svc approvals decide ${event.aggregateId} approve|deny)`;
  return tool;
}

/**
 * Starts a run and follows its session's stream until the run settles, printing its progress
 * and, as the model writes it, the answer's text (with `--json`, the durable events only, one per
 * line). Returns the settled run and the text that was shown live.
 */
async function followRun(
  context: CommandContext,
  client: ProjectClient,
  start: () => Promise<{ runId: string; sessionId: string }>,
): Promise<{ run: Run; shown: string }> {
  const done = new AbortController();
  const progress = context.options.json ? null : new RunProgress(context.io.stdout);
  const ids = await start();
  context.io.stdout.write(`session ${ids.sessionId}, run ${ids.runId}\n`);
  const live = new LiveText();
  // What of each turn's text has been printed: a retried attempt starts it over.
  const printed = new Map<number, string>();
  let shown = '';
  // The run's `model.call_started` events seen so far.
  let callsStarted = 0;
  /** Prints what the turn's text has gained since it was last printed (all of it, when it started over). */
  const showText = (progress: RunProgress, turn: number) => {
    const text = live.textOf(ids.runId, turn);
    const before = printed.get(turn) ?? '';
    if (text === before) return;
    if (text.startsWith(before)) progress.text(text.slice(before.length));
    else {
      progress.endText();
      progress.text(`(the model's answer started over)\n${text}`);
    }
    printed.set(turn, text);
    shown = text;
  };
  let run: Run | null = null;
  const check = async () => {
    run = await client.getRun(ids.runId);
    if ((SETTLED_RUN_STATES as readonly string[]).includes(run.state)) done.abort();
  };
  try {
    // From the session's first event: nothing of the run can be missed, and a reconnection
    // resumes after the last event shown (the text of a turn being written comes again whole).
    for await (const frame of client.sessionEvents(ids.sessionId, { deltas: !context.options.json, signal: done.signal, onConnect: check })) {
      if (frame.type !== 'event') {
        live.apply(frame);
        const turn = frame.type === 'message.delta' ? frame.delta.turn : frame.reset.turn;
        if ((frame.type === 'message.delta' ? frame.delta.runId : frame.reset.runId) !== ids.runId || !progress) continue;
        // Live text can overtake the durable event of its model call on the stream: the turn's
        // text waits for that line, so the answer is not cut in two by it.
        if (turn > callsStarted) continue;
        showText(progress, turn);
        continue;
      }
      const event = frame.event;
      const ours = event.aggregateId === ids.runId || event.aggregateId === ids.sessionId || event.publicPayload.runId === ids.runId;
      if (!ours) continue;
      if (progress) progress.event(event, `  ${event.occurredAt.slice(11, 23)}  ${event.kind}${describeEvent(event)}`);
      else context.io.stdout.write(`${JSON.stringify(event)}\n`);
      if (event.kind === 'model.call_started' && event.publicPayload.runId === ids.runId) {
        // Every turn has a call started before its text (retries and operation sub-turns add
        // more), so a turn numbered up to this count may show what it has written so far.
        callsStarted += 1;
        if (progress) for (const { runId, turn } of live.entries()) if (runId === ids.runId && turn <= callsStarted) showText(progress, turn);
      }
      if (event.kind.startsWith('run.')) await check();
    }
  } catch (error) {
    if (!done.signal.aborted) throw error;
  } finally {
    progress?.finish();
  }
  return { run: run!, shown };
}

/** The ids of a started run; a session or fork created without a message has none to follow. */
function started(ids: { sessionId: string; runId: string | null }): { sessionId: string; runId: string } {
  if (!ids.runId) throw new UsageError(`session ${ids.sessionId} is idle: there is no run to follow`);
  return { sessionId: ids.sessionId, runId: ids.runId };
}

/** After a followed run: the reply, when it differs from what was shown live; exit 0 when the run completed, else 3. */
async function replyOf(context: CommandContext, client: ProjectClient, { run, shown }: { run: Run; shown: string }): Promise<number> {
  const messages = await client.request<{ data: Array<{ role: string; text: string | null }> }>('GET', `/runs/${run.id}/messages`, { query: { limit: 100 } });
  const reply = messages.data.filter((entry) => entry.role === 'assistant' && entry.text).at(-1)?.text;
  // The answer was shown as it was written; printed again only when what was shown differs.
  if (!context.options.json && reply && reply !== shown) context.io.stdout.write(`\n${reply}\n`);
  return run.state === 'completed' ? 0 : 3;
}

function describePendingTurn(turn: PendingTurn): string {
  const ahead = turn.position - 1;
  const after =
    turn.ifBusy === 'interrupt'
      ? 'the active run is being cancelled; this turn runs once it has settled'
      : `it runs after the active run${ahead > 0 ? ` and the ${ahead} pending ${ahead === 1 ? 'turn' : 'turns'} before it` : ''}`;
  return `session ${turn.sessionId}, pending turn ${turn.id} at position ${turn.position} (${turn.ifBusy}): ${after}\n  withdraw it with: svc sessions withdraw ${turn.sessionId} ${turn.id}`;
}

function describeFork(forked: ForkedSession): string {
  return [
    `session ${forked.id}, forked from session ${forked.forkedFrom.sessionId} at run ${forked.forkedFrom.runId}`,
    `agent version ${forked.agentVersionId}, workspace ${forked.workspace}`,
    forked.run ? `run ${forked.run.id}` : `idle (send its first message: svc sessions send ${forked.id} --message <text>)`,
  ].join('\n');
}

/**
 * Waits for a pending turn to become a run: reads the session's stream from its start (so a
 * hand-off before the stream opened is not missed) until `run.queued` names the turn, or
 * `session.input_withdrawn` says it will never run.
 */
async function handOffOf(client: ProjectClient, turn: PendingTurn): Promise<{ runId: string } | { withdrawn: string }> {
  for await (const frame of client.sessionEvents(turn.sessionId)) {
    if (frame.type !== 'event' || frame.event.publicPayload.pendingTurnId !== turn.id) continue;
    const payload = frame.event.publicPayload;
    if (frame.event.kind === 'run.queued' && typeof payload.runId === 'string') return { runId: payload.runId };
    if (frame.event.kind === 'session.input_withdrawn') return { withdrawn: typeof payload.reason === 'string' ? payload.reason : 'withdrawn' };
  }
  throw new Error('the session stream ended');
}

/** `svc sessions send`: one turn, answered with its run or, while the session is busy and `--if-busy` says so, a pending turn. */
async function sendTurn(context: CommandContext): Promise<number> {
  const client = clientOf(context);
  const sessionId = argument(context, 0, 'sessionId');
  const message = option(context, 'message');
  const ifBusy = ifBusyOf(context);
  const answer = await client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/runs', {
    path: { sessionId },
    body: { message, ...(ifBusy ? { ifBusy } : {}) },
  });
  if (!context.options.follow) {
    print(context, answer, () => ('queued' in answer ? describePendingTurn(answer.pendingTurn) : `session ${sessionId}, run ${answer.id}`));
    return 0;
  }
  if (!('queued' in answer)) return replyOf(context, client, await followRun(context, client, async () => ({ sessionId, runId: answer.id })));
  // A pending turn: shown now, followed once it becomes a run (or reported if it is withdrawn).
  print(context, answer, () => `${describePendingTurn(answer.pendingTurn)}\nwaiting for the active run to settle…`);
  const handedOff = await handOffOf(client, answer.pendingTurn);
  if ('withdrawn' in handedOff) {
    context.io.stdout.write(`pending turn ${answer.pendingTurn.id} was withdrawn (${handedOff.withdrawn}): it will not run\n`);
    return 3;
  }
  return replyOf(context, client, await followRun(context, client, async () => ({ sessionId, runId: handedOff.runId })));
}

/** A restore preview for people: each project's action, what blocks it, and the secrets the restore needs. */
function describePreview(preview: RestorePreview): string {
  const lines = preview.projects.map(
    (project) => `project ${project.slug} (${project.name}): ${project.action.replaceAll('_', ' ')}${project.reason ? ` (${project.reason})` : ''}`,
  );
  for (const conflict of preview.conflicts) lines.push(`conflict: ${conflict.resource} ${conflict.key ?? conflict.id}: ${conflict.message}`);
  for (const warning of preview.warnings) lines.push(`warning: ${warning.message}`);
  for (const needed of preview.requiredCredentials) lines.push(`needs --credentials: ${needed.kind}.${needed.id} (${needed.displayName}, ${needed.value})`);
  lines.push(preview.ready ? 'ready to restore' : 'not ready: resolve the conflicts above');
  return lines.join('\n');
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

export const COMMANDS: Record<string, Command> = {
  ...USAGE_COMMANDS,
  ...SCHEDULE_COMMANDS,
  /** Any route of the project (`/agents`, `/runs/<id>`, ...), or of the API with an absolute `/v1/...` path; prints the JSON answer. */
  request: {
    async run(context) {
      const method = argument(context, 0, 'method').toUpperCase();
      const target = argument(context, 1, 'path');
      if (!METHODS.has(method) || !target.startsWith('/')) throw new UsageError('svc request <GET|POST|PUT|PATCH|DELETE> </path> [--data <json>]');
      let body: unknown;
      if (typeof context.options.data === 'string') {
        try {
          body = JSON.parse(context.options.data);
        } catch {
          throw new UsageError('--data must be JSON');
        }
      }
      const answer = target.startsWith('/v1/')
        ? await new Transport(context.credentials!).json<unknown>(method, target.slice(3), { body })
        : await clientOf(context).request<unknown>(method, target, { body });
      context.io.stdout.write(`${JSON.stringify(answer ?? null, null, 2)}\n`);
      return 0;
    },
  },
  login: {
    needsLogin: false,
    async run(context) {
      const baseUrl = (context.options.url as string | undefined) ?? context.io.env.SVC_URL;
      const apiKey = (context.options['api-key'] as string | undefined) ?? context.io.env.SVC_API_KEY;
      if (!baseUrl || !apiKey) throw new UsageError('svc login needs --url (or SVC_URL) and --api-key (or SVC_API_KEY)');
      const transport = new Transport({ baseUrl, apiKey });
      const who = await transport.json<Context>('GET', '/context');
      const file = await saveCredentials(context.io.env, { baseUrl, apiKey, projectId: who.project.id });
      context.io.stdout.write(
        `Logged in to ${baseUrl} as ${describePrincipal(who)} in project ${who.project.name}; the key is stored in ${file} (mode 0600)\n`,
      );
      return 0;
    },
  },
  whoami: {
    async run(context) {
      const who = await new Transport(context.credentials!).json<Context>('GET', '/context');
      print(context, who, () => `${describePrincipal(who)} in ${who.organization.name} / ${who.project.name}\nscopes: ${who.principal.scopes.join(' ')}`);
      return 0;
    },
  },
  'agents list': {
    async run(context) {
      const agents: PublicAgent[] = [];
      for await (const agent of clientOf(context).list('/agents', { limit: 100 })) agents.push(agent);
      print(context, agents, () => agents.map((agent) => `${agent.id}  ${agent.key}  v${agent.version}  ${agent.name}`).join('\n') || '(no agents)');
      return 0;
    },
  },
  'agents apply': {
    async run(context) {
      const file = argument(context, 0, 'agent file');
      const text = await readFile(file, 'utf8');
      const spec = (/\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text)) as { name?: string; key?: string; description?: string; config?: unknown };
      if (!spec || typeof spec !== 'object' || !spec.config) throw new UsageError(`${file} needs at least name and config`);
      const client = clientOf(context);
      const existing = spec.key ? await agentIdOf(client, spec.key).catch(() => null) : null;
      if (!existing) {
        const agent = await client.request<{ id: string; key: string; version: number }>('POST', '/agents', {
          body: { name: spec.name, key: spec.key, description: spec.description, initialConfig: spec.config },
        });
        print(context, agent, () => `Created agent ${agent.key} (${agent.id}), version ${agent.version}`);
        return 0;
      }
      try {
        const version = await client.request<{ version: number }>('POST', `/agents/${existing}/versions`, { body: { config: spec.config } });
        print(context, version, () => `Published version ${version.version} of ${spec.key}`);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'conflict' && error.details?.version !== undefined)) throw error;
        print(
          context,
          { unchanged: true, version: error.details.version },
          () => `Unchanged: ${spec.key} is already version ${String(error.details!.version)}`,
        );
      }
      return 0;
    },
  },
  'sessions list': {
    async run(context) {
      const sessions: PublicSessionListItem[] = [];
      for await (const session of clientOf(context).list('/sessions', { limit: 100 })) sessions.push(session);
      print(
        context,
        sessions,
        () => sessions.map((session) => `${session.id}  ${session.status}  ${session.createdAt}  ${spendOf(session)}`).join('\n') || '(no sessions)',
      );
      return 0;
    },
  },
  'sessions start': {
    async run(context) {
      const client = clientOf(context);
      const agentId = await agentIdOf(client, option(context, 'agent'));
      const message = optionalOption(context, 'message');
      const title = optionalOption(context, 'title');
      const budget = budgetOf(context);
      // Without a message the session is idle: it waits for its first turn (svc sessions send).
      if (message === undefined && context.options.follow)
        throw new UsageError('--follow needs --message: a session without one is idle, with no run to follow');
      const create = async () => {
        const session = await client.call('post', '/v1/projects/{projectId}/sessions', {
          body: { agentId, ...(title ? { title } : {}), ...(budget ? { budget } : {}), ...(message !== undefined ? { initialMessage: message } : {}) },
        });
        return { sessionId: session.id, runId: session.run?.id ?? null };
      };
      if (!context.options.follow) {
        const ids = await create();
        print(context, ids, () =>
          ids.runId
            ? `session ${ids.sessionId}, run ${ids.runId}`
            : `session ${ids.sessionId}, idle (send its first message: svc sessions send ${ids.sessionId} --message <text>)`,
        );
        return 0;
      }
      return replyOf(context, client, await followRun(context, client, async () => started(await create())));
    },
  },
  'sessions send': {
    async run(context) {
      try {
        return await sendTurn(context);
      } catch (error) {
        // The spec's default: a turn while a run is going is refused; say how to send it anyway.
        if (!(error instanceof ApiError && error.code === 'conflict' && error.details?.latestRunId)) throw error;
        context.io.stderr.write(
          `error: ${error.message}\n  run ${String(error.details.latestRunId)} is ${String(error.details.state)}: send with --if-busy enqueue (after it) or --if-busy interrupt (instead of it)\n`,
        );
        return 1;
      }
    },
  },
  'sessions budget': {
    async run(context) {
      const sessionId = argument(context, 0, 'sessionId');
      const budget = context.options['no-budget'] ? null : budgetOf(context);
      if (budget === undefined) throw new UsageError('Give --max-cost and/or --max-tokens, or --no-budget to remove it');
      const session = await clientOf(context).call('patch', '/v1/projects/{projectId}/sessions/{sessionId}', { path: { sessionId }, body: { budget } });
      print(context, session, () => `session ${session.id}: budget ${describeBudget(session.budget)} (spent so far: ${spendOf(session)})`);
      return 0;
    },
  },
  'sessions withdraw': {
    async run(context) {
      const sessionId = argument(context, 0, 'sessionId');
      const turnId = argument(context, 1, 'turnId');
      const withdrawn = await clientOf(context).call('delete', '/v1/projects/{projectId}/sessions/{sessionId}/pending-turns/{turnId}', {
        path: { sessionId, turnId },
      });
      print(context, withdrawn, () => `Withdrew pending turn ${withdrawn.id}: it will not run`);
      return 0;
    },
  },
  'sessions fork': {
    async run(context) {
      const client = clientOf(context);
      const sessionId = argument(context, 0, 'sessionId');
      const fromRunId = option(context, 'from-run');
      const agentVersionId = optionalOption(context, 'agent-version');
      const title = optionalOption(context, 'title');
      const message = optionalOption(context, 'message');
      if (message === undefined && context.options.follow) throw new UsageError('--follow needs --message: a fork without one is idle, with no run to follow');
      const fork = () =>
        client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/fork', {
          path: { sessionId },
          body: {
            fromRunId,
            ...(agentVersionId ? { agentVersionId } : {}),
            ...(title ? { title } : {}),
            ...(message !== undefined ? { initialMessage: message } : {}),
          },
        });
      if (!context.options.follow) {
        const forked = await fork();
        print(context, forked, () => describeFork(forked));
        return 0;
      }
      const followed = await followRun(context, client, async () => {
        const forked = await fork();
        context.io.stdout.write(`${describeFork(forked).split('\n')[0]}\n`);
        return started({ sessionId: forked.id, runId: forked.run?.id ?? null });
      });
      return replyOf(context, client, followed);
    },
  },
  'runs get': {
    async run(context) {
      const run = await clientOf(context).getRun(argument(context, 0, 'runId'));
      print(
        context,
        run,
        () =>
          `${run.id}  ${run.state}  session ${run.sessionId}\n${spendOf(run)}${run.failure ? `\n${run.failure.errorCode}: ${run.failure.errorExplanation}` : ''}`,
      );
      return 0;
    },
  },
  'events tail': {
    async run(context) {
      const from = (context.options.from as string | undefined) ?? 'now';
      if (from !== 'now' && from !== 'start') throw new UsageError('--from is start or now');
      for await (const frame of clientOf(context).events({ from })) {
        const event = frame.event;
        context.io.stdout.write(
          context.options.json
            ? `${JSON.stringify(event)}\n`
            : `${event.projectPosition}  ${event.occurredAt}  ${event.kind}  ${event.aggregateType}/${event.aggregateId}\n`,
        );
      }
      return 0;
    },
  },
  'tools pending': {
    async run(context) {
      const work = await clientOf(context).request<PendingWork>('GET', '/pending-work');
      print(
        context,
        work,
        () =>
          [
            ...work.toolCalls.map((call) => `tool call ${call.id}  ${call.toolName}  ${call.status}  run ${call.runId}`),
            ...work.approvals.map((approval) => `approval  ${approval.id}  ${approval.toolName}  run ${approval.runId}`),
          ].join('\n') || '(nothing pending)',
      );
      return 0;
    },
  },
  'tools answer': {
    async run(context) {
      const toolCallId = argument(context, 0, 'toolCallId');
      let value: unknown;
      try {
        value = JSON.parse(option(context, 'value'));
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError('--value must be JSON');
      }
      const submitted = await runToolCall(clientOf(context), toolCallId, async () => value);
      print(context, submitted, () => `Answered ${toolCallId}`);
      return 0;
    },
  },
  'approvals decide': {
    async run(context) {
      const approvalId = argument(context, 0, 'approvalId');
      const decision = argument(context, 1, 'approve|deny');
      if (decision !== 'approve' && decision !== 'deny') throw new UsageError('Decide approve or deny');
      const note = context.options.note as string | undefined;
      const decided = await clientOf(context).request<PublicApproval>('POST', `/approvals/${approvalId}/decision`, {
        body: { status: decision === 'approve' ? 'approved' : 'denied', ...(note ? { note } : {}) },
      });
      print(context, decided, () => `Approval ${approvalId} ${decided.status}`);
      return 0;
    },
  },
  'backup download': {
    async run(context) {
      const transport = new Transport(context.credentials!);
      const who = await transport.json<Context>('GET', '/context');
      const response = await transport.send('GET', `/organizations/${who.organization.id}/configuration-backup`);
      const text = await response.text();
      const out = context.options.out as string | undefined;
      if (out) {
        await writeFile(out, text);
        context.io.stdout.write(`Backup of ${who.organization.name} written to ${out}\n`);
      } else context.io.stdout.write(text);
      return 0;
    },
  },
  'backup restore': {
    async run(context) {
      const backup = JSON.parse(await readFile(argument(context, 0, 'backup file'), 'utf8'));
      const credentialsFile = context.options.credentials as string | undefined;
      const credentials = credentialsFile ? JSON.parse(await readFile(credentialsFile, 'utf8')) : undefined;
      const transport = new Transport(context.credentials!);
      const who = await transport.json<Context>('GET', '/context');
      const base = `/organizations/${who.organization.id}/configuration-restore`;
      if (context.options.preview) {
        const preview = await transport.json<RestorePreview>('POST', `${base}/preview`, { body: { backup } });
        print(context, preview, () => describePreview(preview));
        return 0;
      }
      const restored = await transport.json<RestoreResult>('POST', base, { body: { backup, ...(credentials ? { credentials } : {}) } });
      print(context, restored, () =>
        [
          ...restored.projects.map((project) => `Restored project ${project.slug} (${project.id}): ${project.action.replaceAll('_', ' ')}`),
          Object.entries(restored.counts)
            .filter(([, count]) => count > 0)
            .map(([resource, count]) => `${resource} ${count}`)
            .join(', '),
        ].join('\n'),
      );
      return 0;
    },
  },
};
