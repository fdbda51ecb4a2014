/**
 * Configuration backup and restore of a large organization (200 agents × 5 versions, 50 Skills
 * with 10 files each, 20 webhooks) against the bare database work underneath:
 * - backup (every query, ordering, id numbering, config rewriting and the JSON text) against a
 *   bare `select *` of the same rows through the same postgres.js driver; target ≤ 3×;
 * - restore (file checks, plan, credential sealing, config parsing, content hashes and the
 *   inserts, in one transaction) against a bare multi-row INSERT of the same rows in one
 *   transaction; target ≤ 3×.
 * The peak RSS during each is printed beside the figures.
 *
 *   node_modules/.bin/node bench/configuration-backup.bench.ts
 */
import { randomBytes, randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { agents, agentVersions, eventWebhooks, organizations, principals, projects, skills, skillVersions } from '../db/schema/index.ts';
import { canonicalAgentConfig, parseAgentConfig } from '../domain/agent-config/index.ts';
import { createKeyring, sealCredential } from '../services/kernel/credentials/index.ts';
import { exportConfiguration } from '../services/operations/configuration-backup/index.ts';
import { restoreConfiguration } from '../services/operations/configuration-backup/index.ts';
import { webhookCredentialAad } from '../services/configuration/event-webhooks/index.ts';
import type { Actor } from '../services/kernel/service-context.ts';
import { skillContentHash } from '../services/configuration/skills/index.ts';
import { createHash } from 'node:crypto';
import { benchContext, median, openBenchDatabase, printRecords, withBenchDatabase, type BenchRecord } from './support.ts';

const AGENTS = 200;
const VERSIONS = 5;
const SKILLS = 50;
const FILES = 10;
const WEBHOOKS = 20;
const TABLES = [
  'projects',
  'agents',
  'agent_versions',
  'skills',
  'skill_versions',
  'event_webhooks',
  'model_providers',
  'model_presets',
  'sandbox_providers',
  'storage_providers',
  'mcp_servers',
  'mcp_server_versions',
  'mcp_credentials',
  'mcp_credential_policies',
  'mcp_credential_policy_versions',
  'mcp_toolsets',
  'mcp_toolset_versions',
];
const RESTORED_TABLES = ['agents', 'agent_versions', 'skills', 'skill_versions', 'event_webhooks'];

export async function run(options: { rounds?: number } = {}): Promise<BenchRecord[]> {
  const rounds = options.rounds ?? 3;
  return withBenchDatabase(async (url) => {
    const { database, organizationId } = await openBenchDatabase(url, 4);
    const raw = postgres(url, { max: 1, onnotice: () => {} });
    const keyring = createKeyring(randomBytes(32));
    try {
      const source = await organizationWithActor(database.db, organizationId);
      const rssBefore = process.memoryUsage.rss();
      await seed(database.db, keyring, source);
      const ctx = () => ({ ...benchContext(database), actor: source.actor });

      const backup = async () => JSON.stringify((await exportConfiguration({ ctx: ctx(), input: { organizationId } })).file, null, 2);
      const bareSelect = async () => {
        for (const table of TABLES) await raw.unsafe(`select * from ${table} where organization_id = $1`, [organizationId]);
      };
      await backup();
      await bareSelect();
      const backupTimes: number[] = [];
      const selectTimes: number[] = [];
      let backupPeak = 0;
      for (let round = 0; round < rounds; round++) {
        selectTimes.push(await timed(bareSelect));
        const measured = await withPeakRss(() => timed(backup));
        backupTimes.push(measured.result);
        backupPeak = Math.max(backupPeak, measured.peakRss);
      }

      const file = JSON.parse(await backup());
      const credentials = {
        eventWebhooks: Object.fromEntries(
          file.projects.flatMap((project: any) => project.eventWebhooks).map((webhook: any) => [webhook.id, `whsec_${randomBytes(24).toString('base64')}`]),
        ),
      };
      const deps = { keyring, allowPrivateNetwork: false, deploymentPresetKeys: new Set(['fast']), snapshotIds: new Set<string>() };
      const restoreTimes: number[] = [];
      const insertTimes: number[] = [];
      let restorePeak = 0;
      for (let round = 0; round < rounds; round++) {
        const target = await freshOrganization(database.db);
        const measured = await withPeakRss(() =>
          timed(async () => {
            await restoreConfiguration({
              ctx: { ...benchContext(database), actor: target.actor },
              deps,
              input: { organizationId: target.organizationId, backup: file, credentials },
            });
          }),
        );
        restoreTimes.push(measured.result);
        restorePeak = Math.max(restorePeak, measured.peakRss);
        // The baseline inserts the very rows the restore wrote, under new ids, into another
        // organization: one multi-row INSERT per table in one transaction.
        const copy = await freshOrganization(database.db);
        const rows = await restoredRows(raw, target.organizationId, copy);
        insertTimes.push(
          await timed(() =>
            raw.begin(async (sql) => {
              await sql`insert into projects ${sql(rows.projects!)}`;
              for (const table of RESTORED_TABLES)
                for (let at = 0; at < rows[table]!.length; at += 500) await sql`insert into ${sql(table)} ${sql(rows[table]!.slice(at, at + 500))}`;
            }),
          ),
        );
      }
      const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
      console.log(
        `  backup file ${mib(Buffer.byteLength(JSON.stringify(file, null, 2)))} MiB; process RSS before ${mib(rssBefore)} MiB, peak during backup ${mib(backupPeak)} MiB, during restore ${mib(restorePeak)} MiB`,
      );
      const backupMs = median(backupTimes);
      const selectMs = median(selectTimes);
      const restoreMs = median(restoreTimes);
      const insertMs = median(insertTimes);
      return [
        {
          name: `backup of ${AGENTS} agents × ${VERSIONS} versions, ${SKILLS} Skills × ${FILES} files, ${WEBHOOKS} webhooks vs bare select`,
          unit: 'ms',
          value: backupMs,
          baseline: selectMs,
          ratio: backupMs / selectMs,
          target: 3,
          better: 'lower',
        },
        {
          name: 'restore of that file vs bare multi-row insert of the same rows',
          unit: 'ms',
          value: restoreMs,
          baseline: insertMs,
          ratio: restoreMs / insertMs,
          target: 3,
          better: 'lower',
        },
      ];
    } finally {
      await raw.end({ timeout: 5 });
      await database.close();
    }
  });
}

type Db = Awaited<ReturnType<typeof openBenchDatabase>>['database']['db'];

async function organizationWithActor(db: Db, organizationId: string) {
  const [project] = await db.insert(projects).values({ organizationId, slug: 'main', name: 'Main' }).returning();
  const subject = `api_key:${randomUUID()}`;
  const [principal] = await db
    .insert(principals)
    .values({ organizationId, projectId: project!.id, kind: 'api_key', subject, scopes: ['*'] })
    .returning();
  const actor: Actor = {
    principalId: principal!.id,
    organizationId,
    projectId: project!.id,
    kind: 'api_key',
    subject,
    scopes: ['*'],
    displayName: null,
    organizationRole: null,
    projectRole: null,
    apiKeyId: null,
  };
  return { organizationId, projectId: project!.id, actor };
}

async function freshOrganization(db: Db) {
  const [organization] = await db
    .insert(organizations)
    .values({ slug: `bench-${randomUUID()}`, name: 'Target' })
    .returning();
  const [project] = await db.insert(projects).values({ organizationId: organization!.id, slug: 'home', name: 'Home' }).returning();
  const subject = `api_key:${randomUUID()}`;
  const [principal] = await db
    .insert(principals)
    .values({ organizationId: organization!.id, projectId: project!.id, kind: 'api_key', subject, scopes: ['*'] })
    .returning();
  const actor: Actor = {
    principalId: principal!.id,
    organizationId: organization!.id,
    projectId: project!.id,
    kind: 'api_key',
    subject,
    scopes: ['*'],
    displayName: null,
    organizationRole: null,
    projectRole: null,
    apiKeyId: null,
  };
  return { organizationId: organization!.id, projectId: project!.id, actor };
}

/** The organization as a busy team would have it; rows written directly (the subject is backup and restore, not publication). */
async function seed(db: Db, keyring: ReturnType<typeof createKeyring>, source: { organizationId: string; projectId: string }) {
  const scoped = { organizationId: source.organizationId, projectId: source.projectId };
  const file = (n: number) => ({
    path: `reference/file-${n}.md`,
    contentType: 'text/markdown',
    dataBase64: Buffer.from(`# File ${n}\n${'Some reference text. '.repeat(40)}`).toString('base64'),
  });
  const skillRows = Array.from({ length: SKILLS }, (_, n) => ({ id: randomUUID(), ...scoped, key: `skill-${n}`, displayName: `Skill ${n}`, latestVersion: 1 }));
  await db.insert(skills).values(skillRows);
  const versionRows = skillRows.map((skill, n) => {
    const content = {
      name: `skill-${n}`,
      description: `Skill number ${n}`,
      instructions: `# Skill ${n}\nDo the thing.`,
      license: null,
      compatibility: null,
      metadata: {},
      allowedTools: [],
      files: Array.from({ length: FILES }, (_, f) => file(f)),
    };
    return { id: randomUUID(), ...scoped, skillId: skill.id, version: 1, ...content, contentHash: skillContentHash(content), status: 'active' as const };
  });
  await db.insert(skillVersions).values(versionRows);

  const agentRows = Array.from({ length: AGENTS }, (_, n) => ({
    id: randomUUID(),
    ...scoped,
    key: `agent-${n}`,
    name: `Agent ${n}`,
    description: `Agent number ${n}`,
    latestVersion: VERSIONS,
    latestVersionId: null as string | null,
  }));
  const agentVersionRows = agentRows.flatMap((agent, n) =>
    Array.from({ length: VERSIONS }, (_, v) => {
      const config = parseAgentConfig({
        systemPrompt: `You are agent ${n}, revision ${v + 1}. Answer briefly and cite your sources.`,
        modelPreset: 'fast',
        limits: { maxTurns: 16 },
        skillVersionIds: [versionRows[n % SKILLS]!.id],
      });
      return {
        id: randomUUID(),
        ...scoped,
        agentId: agent.id,
        version: v + 1,
        config: config as Record<string, unknown>,
        contentHash: createHash('sha256').update(canonicalAgentConfig(config)).digest('hex'),
      };
    }),
  );
  for (const agent of agentRows) agent.latestVersionId = agentVersionRows.find((row) => row.agentId === agent.id && row.version === VERSIONS)!.id;
  await db.insert(agents).values(agentRows);
  for (let at = 0; at < agentVersionRows.length; at += 500) await db.insert(agentVersions).values(agentVersionRows.slice(at, at + 500));

  await db.insert(eventWebhooks).values(
    Array.from({ length: WEBHOOKS }, (_, n) => {
      const id = randomUUID();
      return {
        id,
        ...scoped,
        displayName: `Hook ${n}`,
        endpointUrl: `https://hooks.example.com/${n}`,
        eventKinds: ['run.*'],
        includeMessageContent: false,
        enabled: true,
        status: 'active' as const,
        ...sealCredential(keyring, { plaintext: `whsec_${randomBytes(24).toString('base64')}`, associatedData: webhookCredentialAad(id) }),
        deliveredPosition: 0n,
      };
    }),
  );
}

/** The rows a restore wrote into `from`, re-keyed into `to` (new ids, same content). */
async function restoredRows(raw: postgres.Sql, from: string, to: { organizationId: string; projectId: string }) {
  const ids = new Map<string, string>();
  const rekey = (id: string) => {
    let next = ids.get(id);
    if (!next) ids.set(id, (next = randomUUID()));
    return next;
  };
  const rows: Record<string, Array<Record<string, unknown>>> = {};
  const projectRows = await raw`select * from projects where organization_id = ${from} and slug = 'main'`;
  rows.projects = projectRows.map((row) => ({ ...row, id: rekey(row.id), organization_id: to.organizationId }));
  for (const table of RESTORED_TABLES) {
    const found = await raw.unsafe(`select * from ${table} where organization_id = $1`, [from]);
    rows[table] = found.map((row) => {
      const copy: Record<string, unknown> = { ...row, organization_id: to.organizationId };
      for (const column of ['id', 'project_id', 'agent_id', 'skill_id', 'latest_version_id'])
        if (typeof copy[column] === 'string') copy[column] = rekey(copy[column] as string);
      return copy;
    });
  }
  return rows;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Samples the process RSS every 5 ms while `fn` runs. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 5);
  try {
    const result = await fn();
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    return { result, peakRss };
  } finally {
    clearInterval(sampler);
  }
}

if (import.meta.main) {
  printRecords(await run());
}
