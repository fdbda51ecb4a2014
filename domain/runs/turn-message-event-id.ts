import { isUuid } from '../uuid.ts';

/**
 * The id of the `message.created` product event of a run's main-thread model turn, known before
 * the message commits: live output (issue 30) names a turn by run and number, and a client that
 * previews the reply (the Anthropic API's `event_start`) needs the id the durable event will
 * carry. A UUID version 5 (RFC 9562: SHA-1 of a namespace and a name) of `<runId>:turn-<n>` in a
 * namespace of our own, so the same turn always gets the same id and no two turns share one.
 */

/** Our namespace for these ids (random, fixed forever: changing it changes every id). */
const TURN_MESSAGE_EVENT_NAMESPACE = '1102505f-fc08-4d9f-85f0-18df50144f61';

/** The `message.created` event id of main-thread model turn `turn` (1-based, `turn-N`) of `runId`. */
export function turnMessageEventId(runId: string, turn: number): string {
  if (!isUuid(runId)) throw new Error('runId must be a UUID');
  if (!Number.isSafeInteger(turn) || turn < 1) throw new Error('turn must be a positive integer');
  return uuidV5(TURN_MESSAGE_EVENT_NAMESPACE, `${runId.toLowerCase()}:turn-${turn}`);
}

/** A name-based UUID (version 5) of `name` (UTF-8) in `namespace`. */
export function uuidV5(namespace: string, name: string): string {
  const space = namespace.replace(/-/g, '');
  const nameBytes = new TextEncoder().encode(name);
  const input = new Uint8Array(16 + nameBytes.length);
  for (let i = 0; i < 16; i++) input[i] = parseInt(space.slice(i * 2, i * 2 + 2), 16);
  input.set(nameBytes, 16);
  const hash = sha1(input);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = Array.from(hash.subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** SHA-1 (FIPS 180-4), synchronous and dependency-free: domain code imports no Node built-in. */
function sha1(bytes: Uint8Array): Uint8Array {
  const padded = new Uint8Array((((bytes.length + 8) >> 6) + 1) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = bytes.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 0x1_0000_0000));
  view.setUint32(padded.length - 4, bits >>> 0);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Uint32Array(80);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + i * 4);
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!;
      w[i] = (x << 1) | (x >>> 31);
    }
    let [a, b, c, d, e] = h as [number, number, number, number, number];
    for (let i = 0; i < 80; i++) {
      const [f, k] =
        i < 20
          ? [(b & c) | (~b & d), 0x5a827999]
          : i < 40
            ? [b ^ c ^ d, 0x6ed9eba1]
            : i < 60
              ? [(b & c) | (b & d) | (c & d), 0x8f1bbcdc]
              : [b ^ c ^ d, 0xca62c1d6];
      const t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]!) >>> 0;
      e = d;
      d = c;
      c = ((b << 30) | (b >>> 2)) >>> 0;
      b = a;
      a = t;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
  }
  const out = new Uint8Array(20);
  const outView = new DataView(out.buffer);
  h.forEach((word, i) => outView.setUint32(i * 4, word));
  return out;
}
