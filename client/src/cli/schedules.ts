import type { Paths, PublicSchedule, ScheduleFiring } from '../api-types.ts';
import type { ProjectClient } from '../index.ts';
import { agentIdOf, argument, clientOf, optionalChoice, optionalOption, print, UsageError, type Command, type CommandContext } from './command-context.ts';

type ScheduleBody = Paths['/v1/projects/{projectId}/schedules/{scheduleId}']['patch']['body'];

const OVERLAPS = ['skip', 'buffer_one', 'allow_all'] as const;
const TARGETS = ['new_session', 'session'] as const;
const IF_BUSY = ['enqueue', 'skip'] as const;
const UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `--every 90s`, `5m`, `2h`, `1d` or a bare number of seconds → seconds. */
function secondsOf(name: string, value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value);
  if (!match) throw new UsageError(`--${name} is a duration such as 30s, 5m, 2h or 1d (not ${JSON.stringify(value)})`);
  return Number(match[1]) * UNITS[match[2] || 's']!;
}

/** Seconds in the largest unit that divides them: 7200 → `2 h`. */
function durationOf(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size} ${unit}`;
  return `${seconds} s`;
}

const timingOf = (schedule: PublicSchedule) =>
  schedule.cron ? `cron "${schedule.cron}" in ${schedule.timeZone}` : `every ${durationOf(schedule.intervalSeconds!)}`;

function describeFiring(firing: ScheduleFiring): string {
  const made = firing.runId ? ` run ${firing.runId}` : firing.pendingTurnId ? ` pending turn ${firing.pendingTurnId}` : '';
  const why = firing.errorCode ? ` (${firing.errorCode}${firing.errorMessage ? `: ${firing.errorMessage}` : ''})` : '';
  return `${firing.scheduledAt}  ${firing.outcome}${made}${firing.sessionId ? ` in session ${firing.sessionId}` : ''}${why}`;
}

/** Next firing times: none while paused; a change's answer comes before Temporal knows them. */
const nextOf = (schedule: PublicSchedule) =>
  schedule.paused ? '(none: paused)' : schedule.nextFirings.length ? schedule.nextFirings.join(', ') : `(not known yet: svc schedules get ${schedule.id})`;

/** Whose authority each firing uses: who last changed what the schedule does (its creator until then). */
const actsAs = (schedule: PublicSchedule) =>
  schedule.actingPrincipalId === schedule.createdByPrincipalId
    ? `principal ${schedule.actingPrincipalId} (its creator)`
    : `principal ${schedule.actingPrincipalId} (who last changed what it does; created by ${schedule.createdByPrincipalId})`;

function describeSchedule(schedule: PublicSchedule): string {
  const agent = schedule.agentVersionId ? `agent version ${schedule.agentVersionId} (pinned)` : `agent ${schedule.agentId} (its latest version)`;
  const target =
    schedule.target === 'session' ? `turns of session ${schedule.sessionId} (while it is busy: ${schedule.ifBusy ?? 'enqueue'})` : 'a new session each firing';
  return [
    `schedule ${schedule.id}${schedule.name ? ` "${schedule.name}"` : ''}  ${schedule.paused ? 'paused' : 'active'}`,
    `  ${timingOf(schedule)} · overlap ${schedule.overlap} · catch-up window ${durationOf(schedule.catchupWindowSeconds)}`,
    `  ${agent} → ${target}`,
    `  message: ${schedule.message}${schedule.files.length ? ` (+${schedule.files.length} ${schedule.files.length === 1 ? 'file' : 'files'})` : ''}`,
    `  acts as: ${actsAs(schedule)}`,
    `  next: ${nextOf(schedule)}`,
    ...(schedule.recentFirings.length
      ? ['  recent firings:', ...schedule.recentFirings.map((firing) => `    ${describeFiring(firing)}`)]
      : ['  recent firings: none yet']),
  ].join('\n');
}

/**
 * The fields of a creation or a change from the command line: each option given, nothing else.
 * `--session` alone implies `--target session`; `--agent` takes a key too.
 */
async function scheduleFields(context: CommandContext, client: ProjectClient): Promise<ScheduleBody> {
  const agent = optionalOption(context, 'agent');
  const agentVersionId = optionalOption(context, 'agent-version');
  const cron = optionalOption(context, 'cron');
  const every = optionalOption(context, 'every');
  const catchup = optionalOption(context, 'catchup-window');
  const sessionId = optionalOption(context, 'session');
  const name = optionalOption(context, 'name');
  const timeZone = optionalOption(context, 'time-zone');
  const message = optionalOption(context, 'message');
  const overlap = optionalChoice(context, 'overlap', OVERLAPS);
  const target = optionalChoice(context, 'target', TARGETS) ?? (sessionId ? 'session' : undefined);
  const ifBusy = optionalChoice(context, 'if-busy', IF_BUSY);
  if (cron && every) throw new UsageError('Give --cron or --every, not both');
  return {
    ...(name ? { name } : {}),
    ...(agent ? { agentId: await agentIdOf(client, agent) } : {}),
    ...(agentVersionId ? { agentVersionId } : {}),
    ...(cron ? { cron } : {}),
    ...(every ? { intervalSeconds: secondsOf('every', every) } : {}),
    ...(timeZone ? { timeZone } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(overlap ? { overlap } : {}),
    ...(catchup ? { catchupWindowSeconds: secondsOf('catchup-window', catchup) } : {}),
    ...(target ? { target } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(ifBusy ? { ifBusy } : {}),
  };
}

/** `svc schedules <pause|unpause> <id>`: the schedule as it is now. */
const pauseCommand = (paused: boolean): Command => ({
  async run(context) {
    const scheduleId = argument(context, 0, 'scheduleId');
    const client = clientOf(context);
    const path = paused ? '/v1/projects/{projectId}/schedules/{scheduleId}/pause' : '/v1/projects/{projectId}/schedules/{scheduleId}/unpause';
    const schedule = await client.call('post', path, { path: { scheduleId } });
    print(context, schedule, () =>
      paused
        ? `Paused schedule ${schedule.id}: no firings until svc schedules unpause ${schedule.id}`
        : `Unpaused schedule ${schedule.id}: it fires again from its next time`,
    );
    return 0;
  },
});

export const SCHEDULE_COMMANDS: Record<string, Command> = {
  'schedules list': {
    async run(context) {
      const schedules: PublicSchedule[] = [];
      for await (const schedule of clientOf(context).list('/schedules', { limit: 100 })) schedules.push(schedule);
      print(
        context,
        schedules,
        () =>
          schedules
            .map((schedule) => {
              const last = schedule.recentFirings[0];
              const next = schedule.paused ? 'paused' : `next ${schedule.nextFirings[0] ?? '—'}`;
              return `${schedule.id}  ${timingOf(schedule)}  ${next}  last ${last ? `${last.outcome} ${last.scheduledAt}` : '—'}${schedule.name ? `  ${schedule.name}` : ''}`;
            })
            .join('\n') || '(no schedules)',
      );
      return 0;
    },
  },
  'schedules get': {
    async run(context) {
      const schedule = await clientOf(context).call('get', '/v1/projects/{projectId}/schedules/{scheduleId}', {
        path: { scheduleId: argument(context, 0, 'scheduleId') },
      });
      print(context, schedule, () => describeSchedule(schedule));
      return 0;
    },
  },
  'schedules create': {
    async run(context) {
      const client = clientOf(context);
      const fields = await scheduleFields(context, client);
      if (fields.message === undefined) throw new UsageError('Missing --message');
      if (!fields.cron && !fields.intervalSeconds) throw new UsageError('Missing --cron <expression> or --every <duration>');
      const schedule = await client.call('post', '/v1/projects/{projectId}/schedules', {
        body: { ...fields, message: fields.message, ...(context.options.paused ? { paused: true } : {}) },
      });
      print(context, schedule, () => `Created ${describeSchedule(schedule)}`);
      return 0;
    },
  },
  'schedules update': {
    async run(context) {
      const scheduleId = argument(context, 0, 'scheduleId');
      const client = clientOf(context);
      const fields = await scheduleFields(context, client);
      if (Object.keys(fields).length === 0) throw new UsageError('Nothing to change: give the options to change (svc --help)');
      const schedule = await client.call('patch', '/v1/projects/{projectId}/schedules/{scheduleId}', { path: { scheduleId }, body: fields });
      print(context, schedule, () => `Updated ${describeSchedule(schedule)}`);
      return 0;
    },
  },
  'schedules delete': {
    async run(context) {
      const deleted = await clientOf(context).call('delete', '/v1/projects/{projectId}/schedules/{scheduleId}', {
        path: { scheduleId: argument(context, 0, 'scheduleId') },
      });
      print(context, deleted, () => `Deleted schedule ${deleted.id} and its Temporal Schedule`);
      return 0;
    },
  },
  'schedules trigger': {
    async run(context) {
      const triggered = await clientOf(context).call('post', '/v1/projects/{projectId}/schedules/{scheduleId}/trigger', {
        path: { scheduleId: argument(context, 0, 'scheduleId') },
      });
      print(
        context,
        triggered,
        () => `Triggered schedule ${triggered.id}: the firing shows under recent firings once it ran (svc schedules get ${triggered.id})`,
      );
      return 0;
    },
  },
  'schedules pause': pauseCommand(true),
  'schedules unpause': pauseCommand(false),
};
