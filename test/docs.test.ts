import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The decision records (docs/decisions/README.md): one decision per file, named by its subject,
 * at most 60 lines in the shape Context / Decision / Consequences, each listed once in the index;
 * and every reference to a record anywhere in the tree names one that exists. The single file the
 * records replaced is gone, so a reference to it is a reference to nothing.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = path.join(root, 'docs', 'decisions');
const MAX_LINES = 60;
const HEADINGS = ['## Context', '## Decision', '## Consequences'];
// Built from parts so that this file does not name the old file itself.
const OLD_FILE = ['docs', 'decisions'].join('/') + '.md';
const OLD_FILE_PATTERN = new RegExp(OLD_FILE.replaceAll('.', '\\.').replaceAll('/', '\\/'), 'g');
const RECORD_MENTION = /docs\/decisions\/([A-Za-z0-9._-]+\.md)/g;
const MARKDOWN_LINK = /\]\(([^)\s]+?)(?:#[^)\s]*)?\)/g;

const recordNames = async (): Promise<string[]> => (await readdir(folder)).filter((name) => name.endsWith('.md') && name !== 'README.md').sort();

const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n');

/** Every file of the repository git knows of or would add (tracked, or untracked and not ignored), as it is on disk. */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = new Set(listed.split('\0').filter((file) => file !== '' && !file.split('/').includes('node_modules')));
  return [...files].filter((file) => existsSync(path.join(root, file))).sort();
}

/** Where a relative Markdown link of `file` points, from the repository root; null for URLs and anchors. */
function linkTarget(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/')) return null;
  let decoded = target;
  try {
    decoded = decodeURI(target);
  } catch {
    // A malformed escape is checked as written.
  }
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), decoded));
}

describe('docs/decisions/', () => {
  it('holds records of at most 60 lines with a title and the three headings in order', async () => {
    const problems: string[] = [];
    for (const name of await recordNames()) {
      const text = lines(await readFile(path.join(folder, name), 'utf8'));
      if (text.length > MAX_LINES) problems.push(`${name}: ${text.length} lines, more than ${MAX_LINES}`);
      if (!/^# \S/.test(text[0] ?? '')) problems.push(`${name}: the first line is not its "# " title`);
      for (const heading of HEADINGS) {
        if (!text.includes(heading)) problems.push(`${name}: no "${heading}" heading`);
      }
      const [context = -1, decision = -1, consequences = -1] = HEADINGS.map((heading) => text.indexOf(heading));
      if (context >= 0 && decision >= 0 && consequences >= 0 && !(context < decision && decision < consequences)) {
        problems.push(`${name}: the headings are not in the order ${HEADINGS.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names records by subject in kebab-case, never by an issue number, in file names and titles', async () => {
    const problems: string[] = [];
    for (const name of await readdir(folder)) {
      if (name === 'README.md') continue;
      if (/issue-?\d+/i.test(name)) problems.push(`${name}: the file name holds an issue number`);
      if (!/^[a-z0-9]+(-[a-z0-9]+)*\.md$/.test(name)) problems.push(`${name}: not a kebab-case .md name`);
      const title = lines(await readFile(path.join(folder, name), 'utf8'))[0] ?? '';
      if (/issue\s*#?\d+/i.test(title)) problems.push(`${name}: the title holds an issue number`);
    }
    expect(problems).toEqual([]);
  });

  it('lists every record once in the index, by its title, and links nothing that does not exist', async () => {
    const index = lines(await readFile(path.join(folder, 'README.md'), 'utf8'));
    const entries = index.filter((line) => line.startsWith('- ['));
    const malformed = entries.filter((line) => !/^- \[[^\]]+\]\([a-z0-9-]+\.md\) — \S/.test(line));
    const linked: { title: string; file: string }[] = [];
    for (const line of entries) {
      const match = /^- \[([^\]]+)\]\(([^)]+)\)/.exec(line);
      if (match?.[1] !== undefined && match[2] !== undefined) linked.push({ title: match[1], file: match[2] });
    }
    const names = await recordNames();
    const counts = new Map<string, number>();
    for (const { file } of linked) counts.set(file, (counts.get(file) ?? 0) + 1);
    const missing = names.filter((name) => !counts.has(name));
    const twice = [...counts].filter(([, count]) => count > 1).map(([file]) => file);
    const dangling = [...counts.keys()].filter((file) => !existsSync(path.join(folder, file)));
    const titles: string[] = [];
    for (const { title, file } of linked) {
      if (!existsSync(path.join(folder, file))) continue;
      const actual = (lines(await readFile(path.join(folder, file), 'utf8'))[0] ?? '').replace(/^# /, '');
      if (actual !== title) titles.push(`${file}: the index says "${title}", the record "${actual}"`);
    }
    expect({ malformed, missing, twice, dangling, titles }).toEqual({ malformed: [], missing: [], twice: [], dangling: [], titles: [] });
  });

  it('links, from every record and the index, only files that exist', async () => {
    const broken: string[] = [];
    for (const name of await readdir(folder)) {
      const file = `docs/decisions/${name}`;
      const text = await readFile(path.join(root, file), 'utf8');
      for (const [, target] of text.matchAll(MARKDOWN_LINK)) {
        if (target === undefined) continue;
        const resolved = linkTarget(file, target);
        if (resolved !== null && !existsSync(path.join(root, resolved))) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('references to decision records', () => {
  it('name records that exist, and never the single file the records replaced', async () => {
    // One problem per line: `[x](y)` with both naming the old file is one reference.
    const problems = new Map<string, string>();
    for (const file of repositoryFiles()) {
      const bytes = await readFile(path.join(root, file));
      if (bytes.includes(0)) continue;
      const text = bytes.toString('utf8');
      const where = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
      const report = (index: number, problem: string) => {
        if (!problems.has(where(index))) problems.set(where(index), `${where(index)}: ${problem}`);
      };
      for (const match of text.matchAll(OLD_FILE_PATTERN)) {
        report(match.index ?? 0, `names ${OLD_FILE}, which is gone (point at a record in docs/decisions/)`);
      }
      for (const match of text.matchAll(RECORD_MENTION)) {
        const name = match[1];
        if (name !== undefined && !existsSync(path.join(folder, name))) report(match.index ?? 0, `names docs/decisions/${name}, which does not exist`);
      }
      if (!file.endsWith('.md')) continue;
      for (const match of text.matchAll(MARKDOWN_LINK)) {
        const resolved = match[1] === undefined ? null : linkTarget(file, match[1]);
        if (resolved === null) continue;
        if (resolved === OLD_FILE) report(match.index ?? 0, `links ${OLD_FILE}, which is gone`);
        else if (resolved.startsWith('docs/decisions/') && !existsSync(path.join(root, resolved))) {
          report(match.index ?? 0, `links ${resolved}, which does not exist`);
        }
      }
    }
    expect([...problems.values()]).toEqual([]);
  });
});
