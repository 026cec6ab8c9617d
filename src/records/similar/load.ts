/**
 * @module Reading every company's tags and description words for the in-memory similarity model
 * (lsh.ts), a page of companies at a time by id so no statement returns millions of rows at once, and each company's
 * fingerprint: what its answer depends on of its own data, so an update of the index finds the
 * companies an import changed.
 */
import { createHash } from 'node:crypto'
import { compareText } from '../../execute/records.js'
import { columnName, COMPANIES } from '../../store/sql-names.js'
import { COMPANY_ID, COMPANY_TABLE } from '../company-sql.js'
import { queryShape } from '../query-shape.js'
import type { RecordSession } from '../session.js'
import { tagHash, type SimilarityInput } from './lsh.js'
import { descriptionWords } from './scoring.js'
import { keyOf, TAG_TABLES, type TagKey } from './statements.js'
import { tagWeight } from './weights.js'

/** Companies read per statement. */
const PAGE = 50_000

/** A page of companies by key (ids may be sparse or negative: pages follow the ids present). */
const FIRST_COMPANIES = queryShape<{ limit: number }, { id: number; description: string | null }>('similar model: first companies', (db, _d, p) =>
  db.selectFrom(COMPANY_TABLE).select([`${COMPANY_ID} as id`, `${columnName(COMPANIES, 'description')} as description`])
    .orderBy(COMPANY_ID).limit(p.limit))
const COMPANIES_AFTER = queryShape<{ after: number; limit: number }, { id: number; description: string | null }>('similar model: companies after an id', (db, _d, p) =>
  db.selectFrom(COMPANY_TABLE).select([`${COMPANY_ID} as id`, `${columnName(COMPANIES, 'description')} as description`])
    .where(COMPANY_ID, '>', p.after).orderBy(COMPANY_ID).limit(p.limit))
/** The tags of the owners from `from` to `to` (a page's first and last id). */
const TAGS_IN = TAG_TABLES.map((t) => queryShape<{ from: number; to: number }, { owner: number; value: string }>(`similar model: tags in a range (${t.table})`, (db, _d, p) =>
  db.selectFrom(t.table).select([`${t.ownerColumn} as owner`, `${t.valueColumn} as value`])
    .where(t.ownerColumn, '>=', p.from).where(t.ownerColumn, '<=', p.to)))
/** Rows of tags whose owner has no company record still count in df, as the search counts them (through the value index). */
const ALL_COUNTS = TAG_TABLES.map((t) => queryShape<object, { value: string; n: number | string }>(`similar model: tag counts (${t.table})`, (db) =>
  db.selectFrom(t.table).select((eb) => [`${t.valueColumn} as value`, eb.fn.countAll().as('n')]).groupBy(t.valueColumn)))

/** The weights of the model: N and every tag's df when they were taken. */
export interface ModelWeights {
  readonly companies: number
  readonly df: ReadonlyMap<TagKey, number>
}

const COMPANIES_NOW = queryShape<object, { n: number | string }>('similar model: companies', (db) => db.selectFrom(COMPANY_TABLE).select((eb) => eb.fn.countAll().as('n')))

/** N now. */
export async function companiesNow(s: RecordSession): Promise<number> {
  return Number((await s.first(COMPANIES_NOW, {}))?.n ?? 0)
}

/** N and every tag's df now (the weights a build takes when it weighs anew). */
export async function currentWeights(s: RecordSession): Promise<ModelWeights> {
  const [companies, counted] = await Promise.all([companiesNow(s), Promise.all(ALL_COUNTS.map((shape) => s.all(shape, {})))])
  const df = new Map<TagKey, number>()
  counted.forEach((rows, field) => { for (const r of rows) df.set(keyOf(field, r.value), Number(r.n)) })
  return { companies, df }
}

/** A tag's weight under `weights`: a tag they do not know (new since) weighs as one company's tag. */
export function weightOf(weights: ModelWeights, key: TagKey): number {
  return tagWeight(weights.companies, weights.df.get(key) ?? 1)
}

export interface LoadedModel {
  readonly input: SimilarityInput
  /** By company index: what its own answer depends on of its data (tags, description) and the weights. */
  readonly fingerprints: string[]
}

/**
 * Every company's tags and description words. `epoch` names the weights (it enters every
 * fingerprint, so new weights change them all). `pageSize`: companies a statement reads (tests).
 */
export async function loadModelInput(s: RecordSession, weights: ModelWeights, epoch: string, { pageSize = PAGE }: { pageSize?: number } = {}): Promise<LoadedModel> {
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`loadModelInput: pageSize must be a whole number from 1 (got ${pageSize})`)
  // Each page is reduced to numbers before the next is read (its descriptions to word ids, its
  // tags to ids numbered as first met, its fingerprints taken): holding every description and tag
  // text of a million companies at once cost more than a gigabyte.
  const ids: number[] = []
  const fingerprints: string[] = []
  const tagStart: number[] = [0]
  const wordStart: number[] = [0]
  const tags = new Growing()
  const words = new Growing()
  const firstMet = new Map<TagKey, number>()
  const wordId = new Map<string, number>()
  for (;;) {
    const rows = (ids.length === 0
      ? await s.rows(FIRST_COMPANIES, { limit: pageSize })
      : await s.rows(COMPANIES_AFTER, { after: ids[ids.length - 1]!, limit: pageSize })) as [number | string, string | null][]
    if (rows.length === 0) break
    const from = Number(rows[0]![0])
    const to = Number(rows[rows.length - 1]![0])
    const tagRows = await Promise.all(TAGS_IN.map((shape) => s.rows(shape, { from, to })))
    const at = new Map<number, number>()
    const pageKeys: TagKey[][] = rows.map(() => [])
    rows.forEach(([id], i) => at.set(Number(id), i))
    tagRows.forEach((list, field) => {
      for (const [owner, value] of list as [number | string, string][]) {
        const i = at.get(Number(owner))
        if (i !== undefined) pageKeys[i]!.push(keyOf(field, value))
      }
    })
    rows.forEach(([id, description], i) => {
      ids.push(Number(id))
      // Key order (field, then value in UTF-8 byte order, SQLite's BINARY): the order the search
      // reads tags in and sums their weights in, and the order of the final tag ids.
      const keys = pageKeys[i]!.sort(compareText)
      for (const key of keys) {
        let t = firstMet.get(key)
        if (t === undefined) firstMet.set(key, (t = firstMet.size))
        tags.push(t)
      }
      tagStart.push(tags.length)
      const own: number[] = []
      for (const word of descriptionWords(description ?? null)) {
        let w = wordId.get(word)
        if (w === undefined) wordId.set(word, (w = wordId.size))
        own.push(w)
      }
      own.sort((a, b) => a - b)
      for (const w of own) words.push(w)
      wordStart.push(words.length)
      fingerprints.push(createHash('sha1').update(epoch).update('\u0001').update(keys.join('\u0001')).update('\u0002').update(description ?? '\u0000').digest('base64').slice(0, 16))
    })
    if (rows.length < pageSize) break
  }
  // Tag ids in key order: a company's tags, in key order, then have ascending ids.
  const sortedKeys = [...firstMet.keys()].sort(compareText)
  const finalId = new Uint32Array(sortedKeys.length)
  sortedKeys.forEach((key, i) => { finalId[firstMet.get(key)!] = i })
  const tagIds = tags.array()
  for (let i = 0; i < tagIds.length; i++) tagIds[i] = finalId[tagIds[i]!]!
  return {
    input: {
      ids: Float64Array.from(ids),
      tagStart: Uint32Array.from(tagStart),
      tags: tagIds,
      wordStart: Uint32Array.from(wordStart),
      words: words.array(),
      weights: Float64Array.from(sortedKeys, (key) => weightOf(weights, key)),
      tagHashes: Uint32Array.from(sortedKeys, tagHash),
    },
    fingerprints,
  }
}

/** A list of 32-bit numbers growing by doubling (a JavaScript array of millions costs twice the memory). */
class Growing {
  length = 0
  #values = new Uint32Array(1024)

  push(value: number): void {
    if (this.length === this.#values.length) {
      const grown = new Uint32Array(2 * this.#values.length)
      grown.set(this.#values)
      this.#values = grown
    }
    this.#values[this.length++] = value
  }

  /** The values (a copy of their length). */
  array(): Uint32Array {
    return this.#values.slice(0, this.length)
  }
}
