import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeVersionContent } from './content.ts';
import { renderSkillMd } from './skill-md.ts';

describe('renderSkillMd', () => {
  it('writes parseable frontmatter and the exact instructions', () => {
    const content = normalizeVersionContent({
      name: 'pdf-tools',
      description: 'Line one: "quoted" # not a comment\nline two \\ back',
      instructions: '# Body\n\n---\ntrailing without newline',
      license: 'MIT',
      compatibility: 'Needs python3 ✓',
      metadata: { version: '1.0', author: 'me' },
      allowedTools: ['Read', 'Bash(git:*)'],
    });
    const text = renderSkillMd(content);
    const match = /^---\n([\s\S]*?)\n---\n/.exec(text)!;
    expect(parse(match[1]!)).toEqual({
      name: 'pdf-tools',
      description: content.description,
      license: 'MIT',
      compatibility: 'Needs python3 ✓',
      metadata: { author: 'me', version: '1.0' },
      'allowed-tools': 'Read Bash(git:*)',
    });
    expect(text.slice(match[0].length)).toBe(content.instructions);
  });

  it('omits unset optional keys', () => {
    const text = renderSkillMd(normalizeVersionContent({ name: 'a', description: 'd', instructions: 'i' }));
    expect(text).toBe('---\nname: a\ndescription: "d"\n---\ni');
  });
});
