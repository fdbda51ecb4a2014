import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { withDatabase } from './postgres-server.ts';

/** A fresh database on the test PostgreSQL server for tests that run service processes. */
export async function createProcessDatabase(provided: { adminUrl: string; runId: string }, label: string) {
  const admin = postgres(provided.adminUrl, { max: 1, onnotice: () => {} });
  const name = `${provided.runId}_${label}_${randomBytes(3).toString('hex')}`;
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(provided.adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  return {
    url,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/**
 * Signs in to a development-mode API process over HTTP and issues an all-scopes API key in the
 * owner's project: what fault and soak tests drive that process with.
 */
export async function developmentApiKey(apiUrl: string, name: string): Promise<{ key: string; projectId: string }> {
  const login = await fetch(`${apiUrl}/v1/auth/development/login`, { method: 'POST', headers: { origin: 'http://localhost:8080' } });
  if (login.status !== 200) throw new Error(`development login failed: ${login.status}`);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const projectId = ((await login.json()) as { context: { project: { id: string } } }).context.project.id;
  const created = await fetch(`${apiUrl}/v1/projects/${projectId}/api-keys`, {
    method: 'POST',
    headers: { cookie, origin: 'http://localhost:8080', 'content-type': 'application/json', 'idempotency-key': `${name}-key` },
    body: JSON.stringify({ name, scopes: ['*'] }),
  });
  if (created.status !== 201) throw new Error(`api key creation failed: ${created.status}`);
  return { key: ((await created.json()) as { secret: string }).secret, projectId };
}
