/**
 * Bounds on things held open at once, such as event streams
 * (docs/decisions/event-stream-limits.md): each holder takes one place under every key it is counted against, all or nothing,
 * and gives them back exactly once. The counts live in the memory of one process.
 */
export type SlotClaim = { key: string; max: number };

export type TakeSlotResult =
  | { taken: true; release: () => void }
  /** `index`: the first claim whose key is full. */
  | { taken: false; index: number };

export class ConcurrentSlots {
  readonly #held = new Map<string, number>();

  /** Takes one place under each claim's key, or none when any of them already holds `max`. */
  take(claims: readonly SlotClaim[]): TakeSlotResult {
    const full = claims.findIndex(({ key, max }) => this.held(key) >= max);
    if (full >= 0) return { taken: false, index: full };
    for (const { key } of claims) this.#held.set(key, this.held(key) + 1);
    let released = false;
    return {
      taken: true,
      release: () => {
        if (released) return;
        released = true;
        for (const { key } of claims) {
          const left = this.held(key) - 1;
          // An empty key is forgotten, so the map holds only keys with something open.
          if (left > 0) this.#held.set(key, left);
          else this.#held.delete(key);
        }
      },
    };
  }

  /** Places held under `key` now. */
  held(key: string): number {
    return this.#held.get(key) ?? 0;
  }
}
