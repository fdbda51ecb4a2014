import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RUN_SEARCH_ATTRIBUTES } from '../domain/runs/workflow.ts';
import {
  devServerArgs,
  devServerConfigPath,
  devServerExtraArgs,
  loadDevServerConfig,
  parseDevServerConfig,
  type DevServerConfig,
} from './dev-server-config.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const config: DevServerConfig = {
  namespace: 'default',
  ip: '127.0.0.1',
  port: 7233,
  uiPort: 8233,
  httpPort: 7243,
  metricsPort: undefined,
  databaseFile: 'temporal.sqlite',
  sqlitePragmas: { journal_mode: 'wal', synchronous: 'normal' },
  searchAttributes: { projectId: 'Keyword', runState: 'Keyword' },
  dynamicConfig: { 'frontend.enableUpdateWorkflowExecution': true, 'limit.maxIDLength': 255, 'some.name': 'x' },
};

describe('temporal-dev.yaml', () => {
  it('the committed file is valid and registers the run search attributes', async () => {
    const loaded = await loadDevServerConfig(devServerConfigPath(projectRoot));
    expect(loaded.namespace).toBe('default');
    expect(loaded.ip).toBe('127.0.0.1');
    expect(loaded.port).toBe(7233);
    // Every key the code searches or sets, with the type it declares (domain/runs/workflow.ts).
    const declared = Object.fromEntries(Object.values(RUN_SEARCH_ATTRIBUTES).map((key) => [key.name, key.type === 'KEYWORD' ? 'Keyword' : key.type]));
    expect(loaded.searchAttributes).toEqual(declared);
    expect(loaded.dynamicConfig['frontend.enableUpdateWorkflowExecution']).toBe(true);
  });

  it('rejects bad fields, naming each', () => {
    const bad = { ...config, port: 70000, searchAttributes: { 'project-id': 'Keyword', runState: 'Keywords' }, extra: 1 };
    expect(() => parseDevServerConfig(bad, 'x.yaml')).toThrow(/Invalid x\.yaml:[\s\S]*port[\s\S]*searchAttributes/);
    expect(() => parseDevServerConfig({ ...config, dynamicConfig: { 'a.b': null } })).toThrow(/dynamicConfig\.a\.b: must have a value/);
  });

  it('defaults search attributes and dynamic config to none', () => {
    const { searchAttributes, dynamicConfig, ...minimal } = config;
    const parsed = parseDevServerConfig(minimal);
    expect(parsed.searchAttributes).toEqual({});
    expect(parsed.dynamicConfig).toEqual({});
  });
});

describe('devServerArgs', () => {
  it('builds the persistent start-dev command line', () => {
    const args = devServerArgs(config, { port: 7233, uiPort: 8233, httpPort: 7243, metricsPort: null, databasePath: '/data/temporal.sqlite' });
    expect(args).toEqual([
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      '7233',
      '--namespace',
      'default',
      '--ui-port',
      '8233',
      '--db-filename',
      '/data/temporal.sqlite',
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
      '--http-port',
      '7243',
      '--search-attribute',
      'projectId=Keyword',
      '--search-attribute',
      'runState=Keyword',
      '--dynamic-config-value',
      'frontend.enableUpdateWorkflowExecution=true',
      '--dynamic-config-value',
      'limit.maxIDLength=255',
      '--dynamic-config-value',
      'some.name="x"',
      '--log-level',
      'warn',
    ]);
  });

  it('runs headless and in memory for tests', () => {
    const args = devServerArgs(config, { port: 40001, uiPort: null, httpPort: null, metricsPort: 40002, databasePath: null });
    expect(args).toContain('--headless');
    expect(args).not.toContain('--ui-port');
    expect(args).not.toContain('--db-filename');
    expect(args).not.toContain('--sqlite-pragma');
    expect(args).not.toContain('--http-port');
    expect(args.slice(args.indexOf('--metrics-port'), args.indexOf('--metrics-port') + 2)).toEqual(['--metrics-port', '40002']);
  });

  it('extra args carry only what the SDK launcher does not model', () => {
    const extra = devServerExtraArgs(config, { httpPort: null, metricsPort: null });
    expect(extra).not.toContain('--port');
    expect(extra).not.toContain('--namespace');
    expect(extra.filter((arg) => arg === '--search-attribute')).toHaveLength(2);
    expect(extra.filter((arg) => arg === '--dynamic-config-value')).toHaveLength(3);
  });
});
