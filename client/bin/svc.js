#!/usr/bin/env node
// In a checkout the TypeScript source runs as is (Node strips the types outside node_modules);
// a published package ships only the compiled dist/ (`npm pack` builds it).
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
const { runCli } = await import(existsSync(source) ? source.href : new URL('../dist/cli/main.js', import.meta.url).href);

process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
