import { execFile } from 'node:child_process';
import { expect, it } from 'vitest';

/**
 * The whole repository type-checks: `tsc -p .` (the service, its tests, and the client against
 * its generated API types, client/src/api-types.ts) and `tsc -p console/app` (the browser
 * console, with the DOM and JSX), so CI fails on a type error anywhere.
 */
it.each(['.', 'console/app'])(
  'type-checks tsc -p %s',
  async (project) => {
    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { timeout: 120_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
      });
    });
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  },
  150_000,
);
