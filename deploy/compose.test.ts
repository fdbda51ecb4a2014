import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSettings, SETTING_NAMES } from '../config/settings.ts';

// Docker is not available where the suite runs, so the image and compose file are checked for
// what would break them silently: settings that do not exist, a production configuration the
// service refuses at start, and the worker missing what sandboxes need.
const here = path.dirname(fileURLToPath(import.meta.url));
// Compose applies YAML merge keys (`<<: *service`); the yaml package does so only when asked.
const compose = parse(readFileSync(path.join(here, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      command?: string[];
      environment?: Record<string, string>;
      env_file?: Array<{ path: string }>;
      depends_on?: Record<string, unknown> | string[];
      security_opt?: string[];
      profiles?: string[];
      volumes?: string[];
      ports?: string[];
    }
  >;
};
const dockerfile = readFileSync(path.join(here, '..', 'Dockerfile'), 'utf8');
const envFile = (file: string) =>
  Object.fromEntries(
    readFileSync(path.join(here, file), 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
const imageEnv = Object.fromEntries([...dockerfile.matchAll(/^\s*(?:ENV\s+)?([A-Z_]+)=(\S+?)\s*\\?$/gm)].map((m) => [m[1]!, m[2]!]));

describe('deploy/compose.yaml and the Dockerfile', () => {
  it('the API and the worker run the image with the service scripts, after PostgreSQL and the Temporal setup', () => {
    expect(compose.services.api!.command).toEqual(['scripts/api.ts']);
    expect(compose.services.worker!.command).toEqual(['scripts/worker.ts']);
    for (const name of ['api', 'worker']) {
      expect(Object.keys(compose.services[name]!.depends_on ?? {})).toEqual(['postgres', 'temporal-setup']);
      expect(compose.services[name]!.env_file).toEqual([{ path: 'service.env', required: true }]);
    }
    expect(compose.services.temporal!.image).toMatch(/^temporalio\//);
    expect(compose.services['temporal-ui']!.image).toMatch(/^temporalio\/ui:/);
  });

  it('every variable the containers set is a setting the service reads, and together they parse as a production configuration', () => {
    const environment = { ...imageEnv, ...envFile('service.env.example'), ...compose.services.api!.environment };
    const unknown = Object.keys({ ...envFile('service.env.example'), ...compose.services.api!.environment }).filter((name) => !SETTING_NAMES.includes(name));
    expect(unknown).toEqual([]);
    const settings = parseSettings({ ...environment, SVC_CREDENTIAL_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(settings.environment).toBe('production');
    expect(settings.databaseUrl).toBe('postgres://agent_runtime:agent_runtime@postgres:5432/agent_runtime');
    expect(settings.temporal.address).toBe('temporal:7233');
  });

  it('the image and both services are health-checked on /readyz, and drain before Docker stops them', () => {
    expect(dockerfile).toMatch(/^HEALTHCHECK .*CMD \["node", "scripts\/healthcheck\.ts"\]$/m);
    for (const name of ['api', 'worker']) {
      const service = compose.services[name] as { healthcheck?: { test: string[] }; stop_grace_period?: string; environment?: Record<string, string> };
      expect(service.healthcheck?.test).toEqual(['CMD', 'node', 'scripts/healthcheck.ts']);
      expect(service.environment).toMatchObject({ SVC_API_METRICS_PORT: '9464', SVC_WORKER_METRICS_PORT: '9464', SVC_SHUTDOWN_GRACE_MS: '5000' });
      expect(service.stop_grace_period).toBe('60s');
    }
  });

  it('the image runs as a non-root user and carries the sandbox and browser packages', () => {
    expect(dockerfile).toMatch(/^USER svc$/m);
    for (const pkg of ['bubblewrap', 'socat', 'chromium']) expect(dockerfile).toContain(` ${pkg} `);
    expect(compose.services.worker!.security_opt).toContain('seccomp=unconfined');
  });

  it('the Temporal server gets the dynamic config the service relies on', () => {
    const dynamic = parse(readFileSync(path.join(here, 'temporal-dynamic-config.yaml'), 'utf8')) as Record<string, Array<{ value: unknown }>>;
    const devServer = parse(readFileSync(path.join(here, '..', 'temporal-dev.yaml'), 'utf8')) as { dynamicConfig: Record<string, unknown> };
    for (const key of [
      'frontend.enableUpdateWorkflowExecution',
      'frontend.enableUpdateWorkflowExecutionAsyncAccepted',
      'system.enableEagerWorkflowStart',
      'history.transferProcessorMaxPollRPS',
      'history.timerProcessorMaxPollRPS',
    ]) {
      expect(dynamic[key]).toEqual([{ value: devServer.dynamicConfig[key] }]);
    }
  });

  it("Prometheus and Grafana are optional services that scrape both processes' operator ports and load the dashboard", () => {
    for (const name of ['prometheus', 'grafana']) {
      const service = compose.services[name]!;
      expect(service.profiles).toEqual(['observability']);
      // Published on the host's loopback only, like the Temporal Web UI.
      for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
      // Every file it mounts is in the repository.
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.')) expect(existsSync(path.join(here, source)), source).toBe(true);
      }
    }
    // The API and worker stay outside the profile: `docker compose up` alone starts no monitoring.
    expect(compose.services.api!.profiles).toBeUndefined();
    const scrape = parse(readFileSync(path.join(here, 'observability', 'prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    expect(scrape.scrape_configs.map((job) => [job.job_name, job.dns_sd_configs[0]!.names, job.dns_sd_configs[0]!.port])).toEqual([
      ['api', ['api'], Number(compose.services.api!.environment!.SVC_API_METRICS_PORT)],
      ['worker', ['worker'], Number(compose.services.worker!.environment!.SVC_WORKER_METRICS_PORT)],
    ]);
    // Prometheus's own checker accepts it (Debian's prometheus, which the test setup installs).
    const checked = spawnSync('/usr/bin/promtool', ['check', 'config', path.join(here, 'observability', 'prometheus.yml')], { encoding: 'utf8' });
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    const datasource = parse(readFileSync(path.join(here, 'observability', 'grafana', 'provisioning', 'datasources', 'prometheus.yaml'), 'utf8')) as {
      datasources: Array<{ uid: string; url: string }>;
    };
    const dashboard = JSON.parse(readFileSync(path.join(here, 'observability', 'grafana', 'dashboards', 'agent-runtime.json'), 'utf8')) as {
      panels: Array<{ type: string; datasource?: { uid: string } }>;
    };
    expect(datasource.datasources).toMatchObject([{ uid: 'agent-runtime-prometheus', url: 'http://prometheus:9090' }]);
    for (const panel of dashboard.panels.filter((item) => item.type !== 'row')) expect(panel.datasource?.uid).toBe('agent-runtime-prometheus');
  });
});
