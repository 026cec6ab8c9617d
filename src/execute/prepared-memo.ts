/**
 * @module Checked queries and their plans, remembered by the request's text.
 *
 * Parsing, checking, the canonical form and id, and the plan are pure functions of the request
 * (the catalog and limits are fixed for a pipeline; nothing in them reads the clock), and together
 * they are most of a call that finds its answer cached (the suite's repeated-page row, `npm run bench`, measures a repeated
 * `engine.count`). Clients repeat requests (a listing's next page, a refreshed dashboard), so the
 * engine keeps the last few hundred: a repeated request costs a `JSON.stringify` and a lookup.
 *
 * Keyed by the JSON text, so `{a, b}` and `{b, a}` are two entries (the canonical id, computed on a
 * miss, is what makes them one stored query). Only successes are kept: an invalid request is
 * answered afresh each time and cannot fill the memo. Bounded by entries and by key bytes, least
 * recently used first out, so large requests (a 5,000-domain list is ~100 KB) cannot grow it past
 * a few megabytes.
 */
import { LRUCache } from 'lru-cache'

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

export class PreparedMemo<V extends {}> {
  readonly #entries: LRUCache<string, V>

  constructor(limits: MemoLimits = DEFAULT_MEMO_LIMITS) {
    // Sized by key length (the values are small and shared with the plan cache); an empty key still counts one.
    this.#entries = new LRUCache<string, V>({ max: limits.maxEntries, maxSize: limits.maxKeyBytes, sizeCalculation: (_value, key) => Math.max(1, key.length) })
  }

  get(key: string): V | undefined {
    return this.#entries.get(key)
  }

  /** Keeps the first value for a key: a later `set` of a known key changes nothing, not even its recency. */
  set(key: string, value: V): void {
    if (this.#entries.has(key)) return
    this.#entries.set(key, value)
  }

  get size(): number {
    return this.#entries.size
  }
}
