import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A docs example (a path from the project root) as a reader runs it: its own Node process; its output, or its failure. */
export function runExample(file: string, env: Record<string, string>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(path.join(root, 'node_modules/.bin/node'), [file], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${file} exited ${code}: ${output}`))));
  });
}
