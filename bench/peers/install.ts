import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where the peers live: git-ignored, never part of the service's own dependencies. */
export const PEERS_DIR = path.join(projectRoot, '.peers');
export const PEER_APPS_DIR = path.join(PEERS_DIR, 'apps');

/** The peers' exact versions. Mastra 1.x and the Restate SDK need Node ≥ 22 (ours is 24). */
export const PEER_PACKAGES: Readonly<Record<string, string>> = {
  '@restatedev/restate-server': '1.7.12',
  '@restatedev/restate-sdk': '1.17.2',
  '@mastra/core': '1.71.0',
  '@mastra/memory': '1.31.0',
  '@mastra/pg': '1.27.1',
  '@langchain/langgraph-cli': '1.5.1',
  '@langchain/langgraph': '1.7.3',
  '@langchain/openai': '1.6.0',
  '@langchain/core': '^1',
  zod: '^4',
};

/**
 * Installs the peers into `.peers/` on first use (and again when PEER_PACKAGES changes), with
 * the project's Node first on PATH so engine checks see Node 24, and copies the peer apps from
 * `bench/peers/apps/` beside them so their imports resolve in `.peers/node_modules`.
 */
export async function ensurePeersInstalled(log: (line: string) => void): Promise<void> {
  mkdirSync(PEERS_DIR, { recursive: true });
  const manifest = { name: 'agent-runtime-service-peers', private: true, type: 'module', dependencies: PEER_PACKAGES };
  const text = JSON.stringify(manifest, null, 2) + '\n';
  const manifestPath = path.join(PEERS_DIR, 'package.json');
  const stampPath = path.join(PEERS_DIR, 'node_modules', '.installed-from');
  const current = existsSync(stampPath) ? readFileSync(stampPath, 'utf8') : null;
  if (current !== text) {
    log('installing the peers into .peers/ (first use) ...');
    writeFileSync(manifestPath, text);
    const nodeBin = path.join(projectRoot, 'node_modules', 'node', 'bin');
    await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: PEERS_DIR,
      env: { ...process.env, PATH: `${nodeBin}${path.delimiter}${process.env.PATH ?? ''}` },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 15 * 60_000,
    });
    writeFileSync(stampPath, text);
  }
  cpSync(path.join(projectRoot, 'bench', 'peers', 'apps'), PEER_APPS_DIR, { recursive: true });
}
