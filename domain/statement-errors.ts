/**
 * What of a failed database statement's error may be shown anywhere (a log line, a Temporal
 * failure in the run's history): its SQL and the server's error with its SQLSTATE, never its
 * parameters, which are a caller's text (a prompt, a tool value). drizzle's error carries them
 * as `params` and in its message (`Failed query: ...\nparams: ...`), so in its stack too;
 * postgres.js's carries `parameters`, and the server quotes a value it cannot read
 * (`invalid input syntax for type uuid: "..."`).
 */

/** True for drizzle's and postgres.js's errors of a statement, which hold its parameters. */
export function isStatementError(error: Error): boolean {
  return Object.hasOwn(error, 'params') || Object.hasOwn(error, 'parameters');
}

/** A statement error's message without the parameters it quotes. */
export function statementMessage(message: string): string {
  return message.replace(/\nparams: [\s\S]*$/, '').replace(/: "[\s\S]*"$/, ': "(value not logged)"');
}

/**
 * A copy of a statement error that is safe to show: the same name, code and frames, the message
 * without parameters, and its cause (the server's error) treated alike. Any other error is
 * returned as it is.
 */
export function withoutStatementParameters(error: Error, ofStatement = false, depth = 0): Error {
  // The driver's error beneath drizzle's is the same statement's, whatever properties it has.
  if (!ofStatement && !isStatementError(error)) return error;
  const message = statementMessage(error.message);
  const shown = new Error(message);
  shown.name = error.name;
  shown.stack = [`${error.name}: ${message}`, ...(error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))].join('\n');
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(shown, { code });
  if (error.cause instanceof Error && depth < 4) shown.cause = withoutStatementParameters(error.cause, true, depth + 1);
  return shown;
}
