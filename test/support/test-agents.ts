import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { startRunApp } from './run-app.ts';

type RunApp = Pick<Awaited<ReturnType<typeof startRunApp>>, 'call'>;

/**
 * Publishes an agent named `name` (with a random suffix, so tests of one app do not collide)
 * whose instructions say who it is ("You are <name>."), on the fake `fast` preset, with `config`
 * merged over that: its id and its first version's id.
 */
export async function createTestAgent(app: RunApp, name: string, config: Record<string, unknown> = {}) {
  const created = await app.call('POST', '/agents', {
    name: `${name} ${randomUUID().slice(0, 6)}`,
    initialConfig: { systemPrompt: `You are ${name}.`, modelPreset: 'fast', limits: { maxTurns: 8 }, ...config },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as string, versionId: created.body.latestVersionId as string };
}
