import { describe, expect, it } from 'vitest';
import { isLowercaseUuid, isUuid } from './uuid.ts';

describe('UUIDs', () => {
  const id = '0b5c6f2e-3d1a-4c8b-9e7f-1a2b3c4d5e6f';

  it('accepts an id in either case and nothing else as one of ours', () => {
    expect([id, id.toUpperCase()].map(isUuid)).toEqual([true, true]);
    expect(['', `${id}0`, ` ${id}`, id.replaceAll('-', ''), `${id}\n`, 'g'.repeat(8) + id.slice(8)].map(isUuid)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('takes only the lowercase form, as PostgreSQL prints it, for names the service wrote', () => {
    expect([id, id.toUpperCase(), `${id.slice(0, 35)}F`].map(isLowercaseUuid)).toEqual([true, false, false]);
  });
});
