/**
 * @module Checked queries and their plans, remembered by the request's text.
 *
 * Parsing, checking, the canonical form and id, and the plan are pure functions of the request
 * (the catalog and limits are fixed for a pipeline; nothing in them reads the clock), and together
 * they were most of a call that finds its answer cached: `engine.count` of a cached total at
 * 1,000,000 companies took 0.53 ms before this memo and 0.18 ms with it (the suite's
 * repeated-page row, `npm run bench -- --size 1000000`).
 * Clients repeat requests (a listing's next page, a refreshed dashboard), so the engine keeps the
 * last few hundred: a repeated request costs a `JSON.stringify` and a map lookup instead.
 *
 * Keyed by the JSON text, so `{a, b}` and `{b, a}` are two entries (the canonical id, computed on a
 * miss, is what makes them one stored query). Only successes are kept: an invalid request is
 * answered afresh each time and cannot fill the memo. Bounded by entries and by key bytes, least
 * recently used first out, so large requests (a 5,000-domain list is ~100 KB) cannot grow it past
 * a few megabytes.
 */
export interface MemoLimits {
  readonly maxEntries: number
  readonly maxKeyBytes: number
}

export const DEFAULT_MEMO_LIMITS: MemoLimits = Object.freeze({ maxEntries: 512, maxKeyBytes: 4_000_000 })

/** The memo's key for a request, or undefined when it cannot be one (not JSON, or too large alone). */
export function memoKey(request: unknown, limits: MemoLimits = DEFAULT_MEMO_LIMITS): string | undefined {
  let text: string | undefined
  try {
    text = JSON.stringify(request)
  } catch {
    return undefined
  }
  // One request may take at most an eighth of the memo's key budget, so a few huge requests cannot
  // evict everything else. Lengths are UTF-16 units, counted as bytes: a rough bound is enough here.
  return text !== undefined && text.length <= limits.maxKeyBytes / 8 ? text : undefined
}

export class PreparedMemo<V> {
  readonly #entries = new Map<string, V>()
  #keyBytes = 0

  constructor(private readonly limits: MemoLimits = DEFAULT_MEMO_LIMITS) {}

  get(key: string): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined) {
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  set(key: string, value: V): void {
    if (this.#entries.has(key)) return
    this.#entries.set(key, value)
    this.#keyBytes += key.length
    while (this.#entries.size > this.limits.maxEntries || this.#keyBytes > this.limits.maxKeyBytes) {
      const oldest = this.#entries.keys().next().value as string
      this.#entries.delete(oldest)
      this.#keyBytes -= oldest.length
    }
  }

  get size(): number {
    return this.#entries.size
  }
}
