import { createClient, type ProjectClient } from '../index.ts';
import type { Credentials } from './credentials.ts';
import type { CliIo } from './main.ts';

/**
 * What every command gets, and the small readers of its command line they share: the command
 * groups live in files of their own (commands.ts, schedules.ts, usage.ts) and meet in COMMANDS.
 */
export type CommandContext = {
  io: CliIo;
  args: string[];
  options: Record<string, string | boolean | undefined>;
  credentials: Credentials | null;
};
export type Command = { needsLogin?: false; run(context: CommandContext): Promise<number> };

/** A mistake in the command line itself (exit 2). */
export class UsageError extends Error {}

/** The pattern of domain/uuid.ts: the client package ships alone, so it carries its own. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const clientOf = ({ credentials }: CommandContext): ProjectClient => createClient(credentials!);
/** The service's JSON with `--json`, else the summary for people. */
export const print = (context: CommandContext, value: unknown, summary: () => string) =>
  context.io.stdout.write(context.options.json ? `${JSON.stringify(value, null, 2)}\n` : `${summary()}\n`);
export const argument = (context: CommandContext, index: number, name: string) => {
  const value = context.args[index];
  if (!value) throw new UsageError(`Missing <${name}>`);
  return value;
};
export const option = (context: CommandContext, name: string) => {
  const value = context.options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`Missing --${name}`);
  return value;
};

/** A string option that may be left out (`--title`); given empty, it is a mistake. */
export const optionalOption = (context: CommandContext, name: string) => {
  const value = context.options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} needs a value`);
  return value;
};

/** A number option that may be left out (`--max-cost 2.5`); anything but a number ≥ 0 is a mistake. */
export const optionalNumber = (context: CommandContext, name: string, { integer = false } = {}) => {
  const value = optionalOption(context, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || (integer && !Number.isInteger(number)))
    throw new UsageError(`--${name} is ${integer ? 'a whole number' : 'a number'} of at least 0 (not ${JSON.stringify(value)})`);
  return number;
};

/** An option limited to a few words (`--overlap skip|buffer_one|allow_all`). */
export const optionalChoice = <T extends string>(context: CommandContext, name: string, choices: readonly T[]): T | undefined => {
  const value = context.options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value))
    throw new UsageError(`--${name} is ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)} (not ${JSON.stringify(value)})`);
  return value as T;
};

/** An agent by id, or by key (looked up among the project's agents). */
export async function agentIdOf(client: ProjectClient, reference: string): Promise<string> {
  if (UUID.test(reference)) return reference;
  for await (const agent of client.list('/agents', { limit: 100 })) if (agent.key === reference) return agent.id;
  throw new UsageError(`No agent with key ${reference}`);
}
