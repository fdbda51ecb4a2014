import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Who imports whom (ARCHITECTURE.md "Layout", STYLE.md "Layout and boundaries"), checked over
 * every source file. `import type` counts only where a rule says types are allowed.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LAYERS = ['api', 'services', 'domain', 'db', 'workflows', 'activities', 'temporal', 'config', 'console', 'client'] as const;
type Layer = (typeof LAYERS)[number] | 'test' | 'scripts' | 'bench';

// Runtime imports each layer may make of our own code (its own layer is always allowed).
const allowed: Record<(typeof LAYERS)[number], { runtime: Layer[]; typeOnly: Layer[] }> = {
  api: { runtime: ['services', 'domain', 'config', 'console'], typeOnly: ['db'] },
  services: { runtime: ['db', 'domain', 'temporal'], typeOnly: ['config'] },
  domain: { runtime: [], typeOnly: [] },
  db: { runtime: [], typeOnly: ['domain', 'config'] },
  workflows: { runtime: ['domain'], typeOnly: ['activities'] },
  activities: { runtime: ['services', 'domain'], typeOnly: ['config', 'db'] },
  temporal: { runtime: ['config', 'domain'], typeOnly: [] },
  config: { runtime: [], typeOnly: [] },
  // The browser console talks to the service through the typed client, and shares the domain's pure rules (the config parser).
  console: { runtime: ['client', 'domain'], typeOnly: [] },
  client: { runtime: ['domain'], typeOnly: [] },
};

type Import = { file: string; from: Layer; to: string; typeOnly: boolean };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'migrations' || name === 'dist' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const from = path.relative(root, file).split(path.sep)[0] as Layer;
  const found: Import[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
    found.push({ file: path.relative(root, file), from, to: match[3]!, typeOnly: Boolean(match[2]) });
  }
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) found.push({ file: path.relative(root, file), from, to: match[1]!, typeOnly: false });
  return found;
}

const imports = LAYERS.flatMap((layer) => {
  try {
    return sourceFiles(path.join(root, layer)).flatMap(importsOf);
  } catch {
    return [];
  }
});

function targetLayer(entry: Import): Layer | null {
  if (!entry.to.startsWith('.')) return null;
  const resolved = path.relative(root, path.resolve(root, path.dirname(entry.file), entry.to));
  return resolved.split(path.sep)[0] as Layer;
}

describe('layer boundaries', () => {
  it('every relative import follows the who-imports-whom rules', () => {
    const violations = imports.flatMap((entry) => {
      const to = targetLayer(entry);
      if (!to || to === entry.from) return [];
      const rule = allowed[entry.from as (typeof LAYERS)[number]];
      if (rule.runtime.includes(to) || (entry.typeOnly && rule.typeOnly.includes(to))) return [];
      return [`${entry.file} imports ${entry.typeOnly ? 'types from ' : ''}${entry.to}`];
    });
    expect(violations).toEqual([]);
  });

  it('bench/ and scripts/ never import from test/ (test fixtures are not part of what ships)', () => {
    const shipped = (['bench', 'scripts'] as const).flatMap((dir) => sourceFiles(path.join(root, dir)).flatMap(importsOf));
    expect(shipped.length).toBeGreaterThan(0);
    const violations = shipped.filter((entry) => targetLayer(entry) === 'test');
    expect(violations.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });

  it('domain and workflows stay free of Node built-ins (workflows bundle them)', () => {
    const violations = imports.filter((entry) => (entry.from === 'domain' || entry.from === 'workflows') && entry.to.startsWith('node:'));
    expect(violations.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });
});
