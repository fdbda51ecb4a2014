import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Who imports whom (ARCHITECTURE.md "Layout", STYLE.md "Layout and boundaries"), checked over
 * every source file. `import type` counts only where a rule says types are allowed.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LAYERS = [
  'api',
  'services',
  'processes',
  'compat',
  'doors',
  'domain',
  'db',
  'adapters',
  'workflows',
  'activities',
  'temporal',
  'config',
  'console',
  'client',
] as const;
type Layer = (typeof LAYERS)[number] | 'test' | 'scripts' | 'bench';

// Runtime imports each layer may make of our own code (its own layer is always allowed).
const allowed: Record<(typeof LAYERS)[number], { runtime: Layer[]; typeOnly: Layer[] }> = {
  // The event tail and the delta bus reach routes as deps (their types only); composition roots start them.
  api: { runtime: ['services', 'domain', 'config', 'console'], typeOnly: ['db', 'processes'] },
  services: { runtime: ['db', 'domain', 'adapters', 'temporal'], typeOnly: ['config'] },
  // Long-lived loops and buses over the verbs (the event tail, the delta bus, sweepers, dispatchers).
  processes: { runtime: ['services', 'db', 'domain', 'adapters', 'config'], typeOnly: [] },
  // A vendor-compatible API (compat/<vendor>/): routes over the core's verbs, read models and middleware; its own tables.
  compat: { runtime: ['api', 'services', 'processes', 'domain', 'db', 'config'], typeOnly: [] },
  // The standard agent protocols (doors/a2a, doors/mcp, and doors/shared they share): routes over the core's verbs; no tables.
  doors: { runtime: ['api', 'services', 'domain', 'config'], typeOnly: ['processes'] },
  domain: { runtime: [], typeOnly: [] },
  db: { runtime: [], typeOnly: ['domain', 'config'] },
  // Outbound wire protocols (models, MCP, pinned HTTP, S3): they speak to other systems and keep no state of ours.
  adapters: { runtime: ['domain'], typeOnly: [] },
  workflows: { runtime: ['domain'], typeOnly: ['activities'] },
  activities: { runtime: ['services', 'adapters', 'domain'], typeOnly: ['config', 'db', 'processes'] },
  temporal: { runtime: ['config', 'domain'], typeOnly: [] },
  // The logger shows a failed statement's error as the domain's rule says (domain/statement-errors.ts).
  config: { runtime: ['domain'], typeOnly: [] },
  // The browser console talks to the service through the typed client, and shares the domain's pure rules (the config parser).
  console: { runtime: ['client', 'domain'], typeOnly: [] },
  client: { runtime: ['domain'], typeOnly: [] },
};

type Import = { file: string; from: Layer; to: string; typeOnly: boolean; names: string[] };

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
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?)from\s+['"]([^'"]+)['"]/gm)) {
    // The value names an import brings (`{ a, b as c, type D }` → a, b).
    const names = [...(/\{([^}]*)\}/.exec(match[3]!)?.[1] ?? '').split(',')]
      .map((name) => name.trim())
      .filter((name) => name && !name.startsWith('type '))
      .map((name) => name.split(/\s+as\s+/)[0]!.trim());
    found.push({ file: path.relative(root, file), from, to: match[4]!, typeOnly: Boolean(match[2]), names });
  }
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm))
    found.push({ file: path.relative(root, file), from, to: match[1]!, typeOnly: false, names: [] });
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

/** The planes of services/, lowest first (services/README.md). */
const PLANES = ['kernel', 'access', 'configuration', 'runtime', 'operations'];
const servicesRoot = path.join(root, 'services');
const planeOf = (file: string) => path.relative(servicesRoot, file).split(path.sep)[0]!;
const unitOf = (file: string) => path.relative(servicesRoot, file).split(path.sep).slice(0, 2).join('/');
/** Every import from one file of services/ to another, with both ends as absolute paths. */
const servicesImports = imports
  .filter((entry) => entry.from === 'services' && entry.to.startsWith('.'))
  .map((entry) => ({ ...entry, fromFile: path.join(root, entry.file), target: path.resolve(root, path.dirname(entry.file), entry.to) }))
  .filter((entry) => entry.target.startsWith(servicesRoot + path.sep));

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

  it("adapters/ touch no database and no Temporal: they speak other systems' wire protocols and keep no state of ours", () => {
    const adapters = imports.filter((entry) => entry.from === 'adapters');
    expect(adapters.length).toBeGreaterThan(0);
    const stateful = /^(drizzle-orm|postgres|@electric-sql\/pglite|@temporalio\/)/;
    const violations = adapters.filter((entry) => stateful.test(entry.to) || ['db', 'services', 'activities', 'temporal'].includes(targetLayer(entry) ?? ''));
    expect(violations.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });

  it("only adapters/ speak other systems' wire protocols: no S3, MCP, OpenID or raw HTTP client library elsewhere", () => {
    const wire = /^(@aws-sdk\/|@modelcontextprotocol\/sdk|openid-client$|undici$)/;
    // The MCP door serves the protocol (its server side): inbound, not a client of another system.
    const mcpServerSide = (entry: Import) => entry.from === 'doors' && /^@modelcontextprotocol\/sdk\/(server|shared|types)/.test(entry.to);
    const violations = imports.filter((entry) => entry.from !== 'adapters' && wire.test(entry.to) && !mcpServerSide(entry));
    expect(imports.filter((entry) => entry.from === 'adapters' && wire.test(entry.to)).length).toBeGreaterThan(3);
    expect(violations.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });

  it('services/ is split into planes that depend one way: kernel <- access <- configuration <- runtime <- operations', () => {
    // services/README.md: a plane imports its own and lower planes only, type imports included.
    const planes = servicesImports.map((entry) => ({ ...entry, fromPlane: planeOf(entry.fromFile), toPlane: planeOf(entry.target) }));
    expect(new Set(planes.map((entry) => entry.fromPlane))).toEqual(new Set(PLANES));
    const upward = planes.filter(
      (entry) => PLANES.includes(entry.fromPlane) && PLANES.includes(entry.toPlane) && PLANES.indexOf(entry.toPlane) > PLANES.indexOf(entry.fromPlane),
    );
    expect(upward.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });

  it('the Anthropic-compatible API is one removable module: only the composition root mounts it, and it reads the core through verbs and read models', () => {
    const everyImport = [...imports, ...(['bench', 'scripts', 'test'] as const).flatMap((dir) => sourceFiles(path.join(root, dir)).flatMap(importsOf))];
    const intoCompat = everyImport.filter((entry) => entry.from !== 'compat' && targetLayer(entry) === 'compat');
    // Only the mount (scripts/app-deps.ts) and the module's own benchmark.
    const mounts = new Set(['scripts/app-deps.ts', 'bench/anthropic-compat.bench.ts']);
    expect(intoCompat.filter((entry) => !mounts.has(entry.file)).map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
    // Its own tables are the only ones it touches: core tables (and their JSON) only through the core's verbs.
    const coreTables = imports.filter(
      (entry) =>
        entry.from === 'compat' &&
        !entry.file.endsWith(`${path.sep}tables.ts`) &&
        /^db\/schema\//.test(path.relative(root, path.resolve(root, path.dirname(entry.file), entry.to))),
    );
    expect(coreTables.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });

  it('the agent protocols are removable modules: only the composition root and their benchmark reach into doors/, and nothing reads a core table', () => {
    const everyImport = [...imports, ...(['bench', 'scripts', 'test'] as const).flatMap((dir) => sourceFiles(path.join(root, dir)).flatMap(importsOf))];
    const intoDoors = everyImport.filter((entry) => entry.from !== 'doors' && targetLayer(entry) === 'doors');
    const mounts = new Set(['scripts/app-deps.ts', 'bench/agent-protocols.bench.ts']);
    expect(intoDoors.filter((entry) => !mounts.has(entry.file)).map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
    // Each protocol stands alone: a2a and mcp share doors/shared, never each other.
    const doorOf = (file: string) => file.split(path.sep)[1];
    const across = imports.filter((entry) => {
      if (entry.from !== 'doors' || !entry.to.startsWith('.')) return false;
      const target = path.relative(root, path.resolve(root, path.dirname(entry.file), entry.to)).split(path.sep);
      return target[0] === 'doors' && target[1] !== 'shared' && target[1] !== doorOf(entry.file);
    });
    expect(across.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });

  it('no import circle of more than one file outside client/, type imports included', () => {
    const edges = new Map<string, Set<string>>();
    for (const entry of imports) {
      if (!entry.to.startsWith('.') || entry.from === 'client') continue;
      const target = path.relative(root, path.resolve(root, path.dirname(entry.file), entry.to));
      edges.set(entry.file, (edges.get(entry.file) ?? new Set()).add(target));
    }
    expect(edges.size).toBeGreaterThan(500);
    expect(circles(edges)).toEqual([]);
  });

  it('inside services/, imports between folders point one way: no circle, type imports included', () => {
    // A folder of a plane (or a file at the top of a plane) is one unit; the run lifecycle is owned
    // by runtime/runs, which the session, tool-call and delegation verbs build on, never the reverse.
    const edges = new Map<string, Set<string>>();
    for (const entry of servicesImports) {
      const from = unitOf(entry.fromFile);
      const to = unitOf(entry.target);
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
    expect(edges.size).toBeGreaterThan(20);
    expect(circles(edges)).toEqual([]);
  });

  it('each folder of a plane is used from outside only through its index.ts: its verbs apart from its helpers', () => {
    // Every file of the repository, tests and benchmarks included: a helper a caller needs is exported on purpose.
    const everyFile = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory())
          return ['node_modules', 'dist', 'migrations', '.data', '.tools', '.peers', '.git'].includes(name) ? [] : everyFile(full);
        return /\.tsx?$/.test(name) ? [full] : [];
      });
    const folderOf = (file: string) => {
      const parts = path.relative(servicesRoot, file).split(path.sep);
      return !parts[0]!.startsWith('..') && parts.length >= 3 ? parts.slice(0, 2).join('/') : null;
    };
    const deep: string[] = [];
    let throughIndex = 0;
    for (const file of everyFile(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from\s+|import\(\s*)['"](\.[^'"]+)['"]/g)) {
        const target = path.resolve(path.dirname(file), match[1]!);
        const folder = folderOf(target);
        if (!folder || folderOf(file) === folder) continue;
        if (path.relative(path.join(servicesRoot, folder), target) === 'index.ts') throughIndex++;
        else deep.push(`${path.relative(root, file)} imports ${match[1]}`);
      }
    }
    expect(throughIndex).toBeGreaterThan(300);
    expect(deep).toEqual([]);
  });

  it('verbs that routes and activities call take one object ({ ctx, input } or { db, ... }), never a positional context', () => {
    // Pure helpers, factories and mappers (no context parameter) may take positional arguments.
    const callers = imports.filter((entry) => (entry.from === 'api' || entry.from === 'activities') && !entry.typeOnly && targetLayer(entry) === 'services');
    expect(callers.length).toBeGreaterThan(100);
    const positional = new Set<string>();
    for (const entry of callers) {
      const file = path.resolve(root, path.dirname(entry.file), entry.to);
      const text = readFileSync(file, 'utf8');
      for (const name of entry.names) {
        const declared =
          new RegExp(`export\\s+(?:async\\s+)?function\\s+${name}\\s*(?:<[^>]*>)?\\s*\\(\\s*([^,)]*)`).exec(text) ??
          new RegExp(`export\\s+const\\s+${name}\\s*=\\s*(?:async\\s*)?\\(\\s*([^,)]*)`).exec(text);
        const first = declared?.[1]?.trim() ?? '';
        if (/^(ctx|tx|db)\??\s*:/.test(first)) positional.add(`${path.relative(root, file)}#${name}`);
      }
    }
    expect([...positional].sort()).toEqual([]);
  });

  it('domain and workflows stay free of Node built-ins (workflows bundle them)', () => {
    const violations = imports.filter((entry) => (entry.from === 'domain' || entry.from === 'workflows') && entry.to.startsWith('node:'));
    expect(violations.map((entry) => `${entry.file} imports ${entry.to}`)).toEqual([]);
  });
});

/** The strongly connected components of more than one node (Tarjan): each is a circle of imports. */
function circles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}
