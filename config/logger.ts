import { isStatementError, withoutStatementParameters } from '../domain/statement-errors.ts';

/**
 * One structured JSON logger: one line per record on stdout. Callers pass fields, never
 * secrets; the logger does not try to guess what a secret is.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogSink = (line: string) => void;

export function createLogger(options: { level?: LogLevel; sink?: LogSink; base?: LogFields } = {}): Logger {
  const threshold = rank[options.level ?? 'info'];
  const sink = options.sink ?? ((line: string) => process.stdout.write(line + '\n'));
  const base = options.base ?? {};

  const write = (level: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields) => {
    if (rank[level] < threshold) return;
    sink(JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...base, ...serializeFields(fields) }));
  };

  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    child: (fields) => createLogger({ level: options.level, sink, base: { ...base, ...serializeFields(fields) } }),
  };
}

function serializeFields(fields: LogFields | undefined): LogFields {
  if (!fields) return {};
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? serializeError(value) : value;
  }
  return out;
}

/**
 * An error as a log line shows it: name, message, stack and `code`. A failed statement keeps its
 * SQL and the server's error with its SQLSTATE, never its parameters (domain/statement-errors.ts);
 * this is the one place every logged error passes, so no caller of the logger has to remember it.
 */
function serializeError(error: Error, depth = 0, ofStatement = false): LogFields {
  const statement = ofStatement || isStatementError(error);
  const shown = statement ? withoutStatementParameters(error, true) : error;
  const code = (shown as { code?: unknown }).code;
  // A statement's cause is the server's error (its SQLSTATE); other causes stay unlogged, as they were.
  const cause = statement && shown.cause instanceof Error && depth < 4 ? serializeError(shown.cause, depth + 1, true) : undefined;
  return { name: shown.name, message: shown.message, stack: shown.stack, ...(typeof code === 'string' ? { code } : {}), ...(cause ? { cause } : {}) };
}
