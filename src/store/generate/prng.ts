/**
 * @module A small seeded pseudo-random generator (sfc32, seeded through splitmix32) and the
 * distributions the synthetic generator draws from. Deterministic across platforms: only 32-bit
 * integer arithmetic and Math functions that are exact for the values used.
 */

export class Random {
  #a: number
  #b: number
  #c: number
  #d: number

  constructor(seed: number) {
    let s = seed >>> 0
    const splitmix = () => {
      s = (s + 0x9e3779b9) >>> 0
      let z = s
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
      return (z ^ (z >>> 16)) >>> 0
    }
    this.#a = splitmix()
    this.#b = splitmix()
    this.#c = splitmix()
    this.#d = splitmix()
    for (let i = 0; i < 12; i++) this.next()
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0
    this.#d = (this.#d + 1) >>> 0
    this.#a = this.#b ^ (this.#b >>> 9)
    this.#b = (this.#c + (this.#c << 3)) >>> 0
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0
    this.#c = (this.#c + t) >>> 0
    return t / 4294967296
  }

  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }

  /** Index into a list, skewed towards the front (Zipf-like with exponent `skew` > 1). */
  skewedIndex(length: number, skew = 2): number {
    return Math.min(length - 1, Math.floor(length * Math.pow(this.next(), skew)))
  }

  /** `count` distinct items, front-weighted. */
  some<T>(items: readonly T[], count: number, skew = 1.6): T[] {
    const out: T[] = []
    for (let guard = 0; out.length < Math.min(count, items.length) && guard < count * 8; guard++) {
      const item = items[this.skewedIndex(items.length, skew)]!
      if (!out.includes(item)) out.push(item)
    }
    return out
  }

  weighted<T>(table: readonly (readonly [T, number])[]): T {
    let total = 0
    for (const [, w] of table) total += w
    let x = this.next() * total
    for (const [v, w] of table) {
      x -= w
      if (x < 0) return v
    }
    return table[table.length - 1]![0]
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next()
    const v = this.next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }

  /** Log-normal with the given median: the skewed shape of funding amounts, headcounts, traffic. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal())
  }
}
