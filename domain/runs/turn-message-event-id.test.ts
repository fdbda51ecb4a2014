import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { turnMessageEventId, uuidV5 } from './turn-message-event-id.ts';

/** RFC 9562 version 5 through Node's SHA-1: what the pure implementation must match. */
function referenceV5(namespace: string, name: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('gives the published value (Python: uuid5(NAMESPACE_DNS, "python.org"))', () => {
    expect(uuidV5(DNS, 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it("matches Node's SHA-1 across the padding boundaries and for non-ASCII names", () => {
    for (let length = 0; length <= 140; length++) {
      const name = 'x'.repeat(length);
      expect(uuidV5(DNS, name), `length ${length}`).toBe(referenceV5(DNS, name));
    }
    expect(uuidV5(DNS, 'Grüße, 世界 🌍')).toBe(referenceV5(DNS, 'Grüße, 世界 🌍'));
  });
});

describe('turnMessageEventId', () => {
  it('is a version 5 UUID, the same for the same run and turn, different otherwise', () => {
    const runId = randomUUID();
    const id = turnMessageEventId(runId, 1);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(turnMessageEventId(runId, 1)).toBe(id);
    expect(turnMessageEventId(runId.toUpperCase(), 1)).toBe(id);
    expect(turnMessageEventId(runId, 2)).not.toBe(id);
    expect(turnMessageEventId(randomUUID(), 1)).not.toBe(id);
  });

  it('is stable: a changed namespace or name would re-identify stored events', () => {
    expect(turnMessageEventId('00000000-0000-4000-8000-000000000001', 3)).toBe(
      referenceV5('1102505f-fc08-4d9f-85f0-18df50144f61', '00000000-0000-4000-8000-000000000001:turn-3'),
    );
  });

  it('refuses what is not a run id or a turn number', () => {
    expect(() => turnMessageEventId('run-1', 1)).toThrow('runId');
    expect(() => turnMessageEventId(randomUUID(), 0)).toThrow('turn');
    expect(() => turnMessageEventId(randomUUID(), 1.5)).toThrow('turn');
  });
});
