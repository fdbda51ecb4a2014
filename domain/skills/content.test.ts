import { describe, expect, it } from 'vitest';
import { canonicalVersionContent, normalizeVersionContent, versionContentProblems, type SkillVersionContent } from './content.ts';
import { encodeBase64 } from './file.ts';
import { SKILL_MAX_FILES } from './limits.ts';

const b64 = (text: string) => encodeBase64(new TextEncoder().encode(text));
const md = (path: string, text = '# x\n') => ({ path, contentType: 'text/markdown', dataBase64: b64(text) });

const valid: SkillVersionContent = normalizeVersionContent({
  name: 'pdf-tools',
  description: 'Extract text from PDFs.\nUse for any PDF task.',
  instructions: '# PDF tools\n\nRun the extractor.',
  license: 'Apache-2.0',
  metadata: { author: 'example-org', version: '1.0' },
  allowedTools: ['Read', 'Bash(git:*)'],
  files: [md('references/b.md'), md('a.md')],
});

const paths = (content: Partial<SkillVersionContent>) => versionContentProblems({ ...valid, ...content }).map((problem) => problem.path);

describe('versionContentProblems', () => {
  it('accepts a valid package and sorts files', () => {
    expect(versionContentProblems(valid)).toEqual([]);
    expect(valid.files.map((file) => file.path)).toEqual(['a.md', 'references/b.md']);
    expect(valid.compatibility).toBeNull();
  });

  it.each([
    [{ name: '' }, ['name']],
    [{ name: 'PDF' }, ['name']],
    [{ name: '-pdf' }, ['name']],
    [{ name: 'pdf-' }, ['name']],
    [{ name: 'pdf--tools' }, ['name']],
    [{ name: 'a'.repeat(65) }, ['name']],
    [{ name: 'a'.repeat(64) }, []],
    [{ description: '' }, ['description']],
    [{ description: 'x'.repeat(1025) }, ['description']],
    [{ instructions: '' }, ['instructions']],
    [{ instructions: 'x'.repeat(100_001) }, ['instructions']],
    [{ instructions: 'nul\u0000' }, ['instructions']],
    [{ instructions: '\ud800 lone' }, ['instructions']],
    [{ license: '' }, ['license']],
    [{ license: 'MIT\nother' }, ['license']],
    [{ compatibility: 'x'.repeat(501) }, ['compatibility']],
    [{ metadata: { 'bad key': 'x' } }, ['metadata.bad key']],
    [{ metadata: { ok: 'x'.repeat(1025) } }, ['metadata.ok']],
    [{ metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])) }, ['metadata']],
    [{ allowedTools: ['Read', 'Read'] }, ['allowedTools.1']],
    [{ allowedTools: ['Bash(git status)'] }, ['allowedTools.0']],
    [{ allowedTools: [''] }, ['allowedTools.0']],
    [{ files: [md('../x.md')] }, ['files.0.path']],
    [{ files: [{ ...md('a.md'), contentType: 'text/plain' }] }, ['files.0.contentType']],
    [{ files: [{ ...md('a.md'), dataBase64: '%%%' }] }, ['files.0.dataBase64']],
    [{ files: [md('a.md'), md('A.md')] }, ['files.1.path']],
    [{ files: [md('a.md'), md('a.md/b.md')] }, ['files.1.path']],
    [{ files: Array.from({ length: SKILL_MAX_FILES + 1 }, (_, i) => md(`f${i}.md`)) }, ['files']],
  ] as Array<[Partial<SkillVersionContent>, string[]]>)('%j → %j', (change, expected) => {
    expect(paths(change)).toEqual(expected);
  });

  it('names draft files by package path', () => {
    const problems = versionContentProblems({ ...valid, files: [md('x.txt')] }, (file) => `files/${file.path}`);
    expect(problems).toEqual([{ path: 'files/x.txt', message: expect.stringContaining('.md') }]);
  });
});

describe('canonicalVersionContent', () => {
  it('ignores key and file order, not content', () => {
    const reordered = { ...valid, metadata: { version: '1.0', author: 'example-org' }, files: [...valid.files].reverse() };
    expect(canonicalVersionContent(reordered)).toBe(canonicalVersionContent(valid));
    expect(canonicalVersionContent({ ...valid, instructions: `${valid.instructions} ` })).not.toBe(canonicalVersionContent(valid));
    expect(canonicalVersionContent(valid)).toMatch(/^\{"allowedTools":\["Read","Bash\(git:\*\)"\],"compatibility":null,"description":/);
  });
});
