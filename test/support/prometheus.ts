import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from './http-server.ts';

export type Sample = { labels: Record<string, string>; value: number };

export type PrometheusServer = {
  url: string;
  /** An instant query through Prometheus's HTTP API: every series of the answer. */
  query(promql: string): Promise<Sample[]>;
  /** Polls `promql` until `accept` holds for its samples; the last answer is in the error otherwise. */
  until(promql: string, accept: (samples: Sample[]) => boolean, timeoutMs?: number): Promise<Sample[]>;
  close(): Promise<void>;
};

/**
 * A real Prometheus (Debian's `prometheus`, installed by the test setup) on a loopback port with
 * its own configuration and storage, scraping `jobs` every second.
 */
export async function startPrometheus(jobs: Record<string, string>): Promise<PrometheusServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-prometheus-'));
  const scrapeConfigs = Object.entries(jobs)
    .map(([job, target]) => `  - job_name: ${job}\n    scrape_interval: 1s\n    scrape_timeout: 900ms\n    static_configs:\n      - targets: ['${target}']`)
    .join('\n');
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\nscrape_configs:\n${scrapeConfigs}\n`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    '/usr/bin/prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus did not become ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const query = async (promql: string): Promise<Sample[]> => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
    return body.data.result.map((series) => ({ labels: series.metric, value: Number(series.value[1]) }));
  };

  return {
    url,
    query,
    async until(promql, accept, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      let last: Sample[] = [];
      for (;;) {
        last = await query(promql);
        if (accept(last)) return last;
        if (Date.now() > until) throw new Error(`${promql} answered ${JSON.stringify(last)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
