import { describe, expect, it } from 'vitest';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { ValidationError } from '../../../domain/errors.ts';
import { normalizeVersionContent } from '../../../domain/skills/content.ts';
import { renderSkillMd } from '../../../domain/skills/skill-md.ts';
import { displayNameOf, latestVisibleVersion, offsetPage, parseSkillMd, skillArchiveEntries, skillBodyOf, storedZip } from './skills.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const upload = (filename: string, text: string) => ({ filename, bytes: utf8(text) });
const SKILL_MD = '---\nname: pdf-tools\ndescription: Fill PDF forms.\n---\n# PDF tools\n\nUse the form helper.\n';

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseSkillMd', () => {
  it('reads every frontmatter field as text and keeps the body exactly', () => {
    const text = [
      '---',
      'name: pdf-tools',
      'description: "Line one: \\"quoted\\"\\nline two"',
      'license: MIT',
      'compatibility: Needs python3',
      'metadata:',
      '  version: 1.0',
      '  beta: yes',
      'allowed-tools: Read  Bash(git:*)',
      '---',
      '',
      '# Body',
      '---',
      'not frontmatter',
    ].join('\n');
    expect(parseSkillMd(text)).toEqual({
      fields: {
        name: 'pdf-tools',
        description: 'Line one: "quoted"\nline two',
        license: 'MIT',
        compatibility: 'Needs python3',
        metadata: { version: '1.0', beta: 'yes' },
        allowedTools: ['Read', 'Bash(git:*)'],
        instructions: '\n# Body\n---\nnot frontmatter',
      },
    });
  });

  it('accepts allowed-tools as a list, CRLF lines, a BOM, and empty optional values as unset', () => {
    const parsed = parseSkillMd('\uFEFF---\r\nname: a\r\ndescription: d\r\nlicense:\r\nallowed-tools: [Read, Write]\r\n---\r\nbody');
    expect(parsed.fields).toMatchObject({ name: 'a', license: null, compatibility: null, allowedTools: ['Read', 'Write'], instructions: 'body' });
    expect(parseSkillMd('---\n---\nbody').fields).toMatchObject({ name: null, description: '', instructions: 'body' });
  });

  it('round-trips what renderSkillMd writes', () => {
    const content = normalizeVersionContent({
      name: 'pdf-tools',
      description: 'Tricky: "quotes" # hash \\ backslash\ttab ✓',
      instructions: '# Body\n\n---\nno trailing newline',
      license: 'Apache-2.0',
      compatibility: 'Any',
      metadata: { author: 'me', version: '2.1' },
      allowedTools: ['Read', 'Bash(git:*)'],
    });
    const { fields } = parseSkillMd(renderSkillMd(content));
    expect(fields).toEqual({
      name: content.name,
      description: content.description,
      license: content.license,
      compatibility: content.compatibility,
      metadata: content.metadata,
      allowedTools: content.allowedTools,
      instructions: content.instructions,
    });
  });

  it('names what is wrong', () => {
    expect(parseSkillMd('# no frontmatter').problem).toMatch(/frontmatter/);
    expect(parseSkillMd('---\nname: [\n---\nx').problem).toMatch(/not valid YAML \(line 2\)/);
    expect(parseSkillMd('---\n- a\n---\nx').problem).toMatch(/map/);
    expect(parseSkillMd('---\nname: a\nversion: 2\n---\nx').problem).toMatch(/"version"/);
    expect(parseSkillMd('---\nname: a\nmetadata: {a: {b: c}}\n---\nx').problem).toMatch(/metadata\.a/);
    expect(parseSkillMd('---\nname: {a: b}\n---\nx').problem).toMatch(/name must be text/);
  });
});

describe('skillBodyOf', () => {
  it('strips the top-level directory and makes SKILL.md the manifest, the other files Markdown files', () => {
    const { name, body } = skillBodyOf([upload('pdf/SKILL.md', SKILL_MD), upload('pdf/docs/forms.md', '# Forms\n')]);
    expect(name).toBe('pdf-tools');
    expect(body).toEqual({
      name: 'pdf-tools',
      description: 'Fill PDF forms.',
      instructions: '# PDF tools\n\nUse the form helper.\n',
      license: null,
      compatibility: null,
      metadata: {},
      allowedTools: [],
      files: [{ path: 'docs/forms.md', contentType: 'text/markdown', dataBase64: btoa('# Forms\n') }],
    });
  });

  it('takes the directory as the name when the frontmatter has none', () => {
    expect(skillBodyOf([upload('my-skill/SKILL.md', '---\ndescription: d\n---\nbody')]).name).toBe('my-skill');
  });

  it('refuses uploads without one top-level directory holding SKILL.md', () => {
    expect(refusal(() => skillBodyOf([])).details?.path).toBe('body.files[]');
    expect(refusal(() => skillBodyOf([upload('SKILL.md', SKILL_MD)])).message).toMatch(/inside the Skill's top-level directory/);
    expect(refusal(() => skillBodyOf([upload('a/SKILL.md', SKILL_MD), upload('b/x.md', 'x')])).message).toMatch(/one top-level directory/);
    expect(refusal(() => skillBodyOf([upload('a/docs/SKILL.md', SKILL_MD)])).message).toMatch(/"a\/SKILL.md" is missing/);
    expect(refusal(() => skillBodyOf([upload('a/SKILL.md', SKILL_MD), upload('a/skill.md', SKILL_MD)])).message).toMatch(/more than once/);
    expect(refusal(() => skillBodyOf([{ filename: 'a/SKILL.md', bytes: new Uint8Array([0xff, 0xfe]) }])).message).toMatch(/UTF-8/);
  });

  it('locates the core package rules at the uploaded file or SKILL.md field', () => {
    const script = refusal(() => skillBodyOf([upload('pdf/SKILL.md', SKILL_MD), upload('pdf/scripts/fill.py', 'print(1)')]));
    expect(script.message).toBe('files[]: "pdf/scripts/fill.py" must name a Markdown file ending in ".md"');
    expect(script.details?.path).toBe('body.files[]');
    const binary = refusal(() => skillBodyOf([upload('pdf/SKILL.md', SKILL_MD), { filename: 'pdf/x.md', bytes: new Uint8Array([0xc3]) }]));
    expect(binary.message).toBe('files[]: "pdf/x.md" must decode to valid UTF-8 text');
    const name = refusal(() => skillBodyOf([upload('pdf/SKILL.md', '---\nname: PDF Tools\ndescription: d\n---\nbody')]));
    expect(name.message).toMatch(/^files\[\]: "pdf\/SKILL.md" name must be lowercase/);
    const empty = refusal(() => skillBodyOf([upload('pdf/SKILL.md', '---\nname: pdf\ndescription: d\n---\n')]));
    expect(empty.message).toMatch(/body \(the instructions after the frontmatter\) must not be empty/);
  });
});

describe('displayNameOf', () => {
  it('defaults to the name and applies our display-name rule', () => {
    expect(displayNameOf(undefined, 'pdf-tools')).toBe('pdf-tools');
    expect(displayNameOf('  PDF Tools ', 'pdf-tools')).toBe('PDF Tools');
    expect(refusal(() => displayNameOf('x'.repeat(201), 'a')).details?.path).toBe('body.display_name');
  });
});

describe('latestVisibleVersion and offsetPage', () => {
  it('skips revoked versions unless all are', () => {
    expect(
      latestVisibleVersion([
        { version: 1, status: 'active' },
        { version: 2, status: 'revoked' },
      ])?.version,
    ).toBe(1);
    expect(
      latestVisibleVersion([
        { version: 1, status: 'revoked' },
        { version: 2, status: 'revoked' },
      ])?.version,
    ).toBe(2);
  });

  it('pages with opaque offsets and refuses a foreign cursor', () => {
    const first = offsetPage([1, 2, 3], { limit: 2, page: undefined });
    expect(first.data).toEqual([1, 2]);
    expect(offsetPage([1, 2, 3], { limit: 2, page: first.next_page! })).toEqual({ data: [3], next_page: null });
    expect(refusal(() => offsetPage([1], { limit: 1, page: 'nope!' })).details?.path).toBe('query.page');
  });
});

describe('storedZip', () => {
  it('writes a stored zip whose entries read back with their CRC-32', () => {
    const entries = skillArchiveEntries({
      name: 'pdf-tools',
      skillMd: '---\nname: pdf-tools\n---\nü',
      files: [{ path: 'docs/a.md', dataBase64: btoa('# A') }],
    });
    const zip = storedZip(entries, new Date('2026-03-04T05:06:08Z'));
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    const end = zip.length - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    expect(view.getUint16(end + 10, true)).toBe(2);
    let at = view.getUint32(end + 16, true);
    const read: Array<{ name: string; text: string }> = [];
    for (let index = 0; index < 2; index++) {
      expect(view.getUint32(at, true)).toBe(0x02014b50);
      const nameLength = view.getUint16(at + 28, true);
      const offset = view.getUint32(at + 42, true);
      const size = view.getUint32(at + 20, true);
      const crc = view.getUint32(at + 16, true);
      const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength));
      expect(view.getUint32(offset, true)).toBe(0x04034b50);
      const data = zip.subarray(offset + 30 + nameLength, offset + 30 + nameLength + size);
      expect(crc).toBe(zlibCrc32(data));
      read.push({ name, text: new TextDecoder().decode(data) });
      at += 46 + nameLength;
    }
    expect(read).toEqual([
      { name: 'pdf-tools/SKILL.md', text: '---\nname: pdf-tools\n---\nü' },
      { name: 'pdf-tools/docs/a.md', text: '# A' },
    ]);
  });
});
