import { describe, expect, it } from 'vitest';
import { draftProblems, type DraftFields } from './draft-package.ts';
import { encodeBase64 } from './file.ts';

const blank: DraftFields = { name: null, description: null, instructions: null, license: null, compatibility: null, metadata: {}, allowedTools: [] };
const md = (path: string) => ({ path, contentType: 'text/markdown', dataBase64: encodeBase64(new TextEncoder().encode('# x')) });

describe('draftProblems', () => {
  it('reports unset required fields first', () => {
    expect(draftProblems(blank, [], [])).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'description', message: 'is required' },
      { path: 'instructions', message: 'is required' },
    ]);
  });

  it('names files and folders by package path', () => {
    const fields = { ...blank, name: 'ok', description: 'd', instructions: 'i' };
    expect(draftProblems(fields, [md('refs/a.md')], ['refs', 'empty'])).toEqual([]);
    expect(draftProblems({ ...fields, name: 'Bad' }, [{ ...md('refs/a.md'), contentType: 'text/plain' }], []).map((problem) => problem.path)).toEqual([
      'name',
      'files/refs/a.md',
    ]);
  });
});
