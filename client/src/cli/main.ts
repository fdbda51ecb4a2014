import { parseArgs } from 'node:util';
import { ApiError } from '../errors.ts';
import { UsageError, type CommandContext } from './command-context.ts';
import { COMMANDS } from './commands.ts';
import { loadCredentials } from './credentials.ts';

/** Exit codes (client/README.md): documented, stable. */
export const EXIT = { ok: 0, apiError: 1, usage: 2, runNotCompleted: 3, notLoggedIn: 4 } as const;

export type CliIo = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv };

const HELP = `svc — command line for the agent runtime service

  svc login --url <service url> [--api-key <key>]   (or SVC_API_KEY; the key is stored, never printed)
  svc whoami
  svc agents list
  svc agents apply <agent.yaml|agent.json>          create the agent, or publish its changed config
  svc sessions list
  svc sessions start --agent <id|key> [--message <text>] [--title <text>] [--follow]
                     [--max-cost <amount>] [--max-tokens <count>]
                                                    without --message the session is idle until its first turn;
                                                    a run past the budget fails budget_exceeded
  svc sessions budget <sessionId> [--max-cost <amount>] [--max-tokens <count>] [--no-budget]
                                                    replace (or remove) the session's budget
  svc sessions send <sessionId> --message <text> [--if-busy enqueue|interrupt|reject] [--follow]
                                                    while a run is going: reject (the default, a conflict),
                                                    enqueue (a pending turn that runs after it) or
                                                    interrupt (cancel it; this turn runs next)
  svc sessions withdraw <sessionId> <turnId>        a pending turn that has not started
  svc sessions fork <sessionId> --from-run <runId> [--agent-version <id>]
                    [--title <text>] [--message <text>] [--follow]
                                                    a new session with the transcript through a settled
                                                    run, on this or another agent version; idle without
                                                    --message
  svc runs get <runId>                              state, tokens and cost
  svc usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--group-by day|agent|preset|apiKey]
                                                    runs, model calls, tokens and cost (default: this
                                                    month by day)
  svc schedules list
  svc schedules get <scheduleId>                    with its next firing times and recent firings
  svc schedules create (--agent <id|key> | --agent-version <id>) (--cron <expr> | --every <30s|5m|2h|1d>)
                       --message <text> [--name <text>] [--time-zone <IANA name>]
                       [--overlap skip|buffer_one|allow_all] [--catchup-window <duration>]
                       [--session <id> [--if-busy enqueue|skip]] [--paused]
                                                    each firing opens a new session, or with --session
                                                    is a turn of that session
  svc schedules update <scheduleId> [any option of create but --paused] [--target new_session|session]
                                                    only what is given changes
  svc schedules trigger <scheduleId>                fire once now
  svc schedules pause|unpause|delete <scheduleId>
  svc events tail [--from start|now]
  svc tools pending
  svc tools answer <toolCallId> --value <json>      claim, then submit the value
  svc approvals decide <approvalId> approve|deny [--note <text>]
  svc backup download [--out <file>]
  svc backup restore <file> [--preview] [--credentials <file.json>]
                                                    the secrets by kind and id, as the preview lists them
  svc request <METHOD> <path> [--data <json>]       any route: a project path (/agents) or /v1/...

  --json prints the service's JSON answer instead of a summary.
Exit codes: 0 ok, 1 the service refused or failed (message and request id on stderr),
2 usage, 3 a followed run settled other than completed (or a followed pending turn was
withdrawn), 4 not logged in.`;

/** Runs one command line; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        agent: { type: 'string' },
        message: { type: 'string' },
        title: { type: 'string' },
        'if-busy': { type: 'string' },
        'from-run': { type: 'string' },
        'agent-version': { type: 'string' },
        'max-cost': { type: 'string' },
        'max-tokens': { type: 'string' },
        'no-budget': { type: 'boolean' },
        to: { type: 'string' },
        'group-by': { type: 'string' },
        name: { type: 'string' },
        cron: { type: 'string' },
        every: { type: 'string' },
        'time-zone': { type: 'string' },
        overlap: { type: 'string' },
        'catchup-window': { type: 'string' },
        target: { type: 'string' },
        session: { type: 'string' },
        paused: { type: 'boolean' },
        follow: { type: 'boolean' },
        from: { type: 'string' },
        value: { type: 'string' },
        note: { type: 'string' },
        out: { type: 'string' },
        preview: { type: 'boolean' },
        credentials: { type: 'string' },
        data: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${HELP}\n`);
    return EXIT.usage;
  }
  const [group, action, ...rest] = parsed.positionals;
  if (parsed.values.help || !group) {
    io.stdout.write(`${HELP}\n`);
    return group || parsed.values.help ? EXIT.ok : EXIT.usage;
  }
  const single = group === 'login' || group === 'whoami' || group === 'request' || group === 'usage';
  const name = single ? group : `${group} ${action ?? ''}`.trim();
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`Unknown command: svc ${name}\n\n${HELP}\n`);
    return EXIT.usage;
  }
  const args = single ? [action, ...rest].filter((value): value is string => value !== undefined) : rest;
  const context: CommandContext = { io, args, options: parsed.values, credentials: command.needsLogin === false ? null : await loadCredentials(io.env) };
  if (command.needsLogin !== false && !context.credentials) {
    io.stderr.write('Not logged in: run svc login --url <service url> first\n');
    return EXIT.notLoggedIn;
  }
  try {
    return await command.run(context);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof ApiError) {
      io.stderr.write(`error: ${error.message}\n`);
      if (error.details?.path) io.stderr.write(`  at ${String(error.details.path)}\n`);
      return EXIT.apiError;
    }
    io.stderr.write(`error: ${(error as Error).message}\n`);
    return EXIT.apiError;
  }
}
