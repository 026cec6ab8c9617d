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
  const ids: number[] = []
  const descriptions: (string | null)[] = []
  const tagKeys: TagKey[][] = []
  for (;;) {
    const rows = (ids.length === 0
      ? await s.rows(FIRST_COMPANIES, { limit: pageSize })
      : await s.rows(COMPANIES_AFTER, { after: ids[ids.length - 1]!, limit: pageSize })) as [number | string, string | null][]
    if (rows.length === 0) break
    const from = Number(rows[0]![0])
    const to = Number(rows[rows.length - 1]![0])
    const tagRows = await Promise.all(TAGS_IN.map((shape) => s.rows(shape, { from, to })))
    const base = ids.length
    const at = new Map<number, number>()
    for (const [id, description] of rows) {
      at.set(Number(id), ids.length)
      ids.push(Number(id))
      descriptions.push(description)
      tagKeys.push([])
    }
    tagRows.forEach((list, field) => {
      for (const [owner, value] of list as [number | string, string][]) {
        const i = at.get(Number(owner))
        if (i !== undefined) tagKeys[i]!.push(keyOf(field, value))
      }
    })
    for (let i = base; i < ids.length; i++) tagKeys[i]!.sort(compareText)
    if (rows.length < pageSize) break
  }
  // Tag ids in key order (field, then value in UTF-8 byte order, SQLite's BINARY): the order the
  // search reads tags in and sums their weights in.
  const keys = new Set<TagKey>()
  for (const list of tagKeys) for (const key of list) keys.add(key)
  const sortedKeys = [...keys].sort(compareText)
  const tagId = new Map<TagKey, number>(sortedKeys.map((key, i) => [key, i]))
  const tagWeights = Float64Array.from(sortedKeys, (key) => weightOf(weights, key))
  const tagHashes = Uint32Array.from(sortedKeys, tagHash)

  const n = ids.length
  const tagStart = new Uint32Array(n + 1)
  const wordStart = new Uint32Array(n + 1)
  const tags: number[] = []
  const words: number[] = []
  const wordId = new Map<string, number>()
  const fingerprints: string[] = new Array(n)
  for (let i = 0; i < n; i++) {
    for (const key of tagKeys[i]!) tags.push(tagId.get(key)!)
    tagStart[i + 1] = tags.length
    const own: number[] = []
    for (const word of descriptionWords(descriptions[i] ?? null)) {
      let w = wordId.get(word)
      if (w === undefined) wordId.set(word, (w = wordId.size))
      own.push(w)
    }
    own.sort((a, b) => a - b)
    for (const w of own) words.push(w)
    wordStart[i + 1] = words.length
    fingerprints[i] = createHash('sha1').update(epoch).update('\u0001').update(tagKeys[i]!.join('\u0001')).update('\u0002').update(descriptions[i] ?? '\u0000').digest('base64').slice(0, 16)
  }
  return {
    input: { ids: Float64Array.from(ids), tagStart, tags: Uint32Array.from(tags), wordStart, words: Uint32Array.from(words), weights: tagWeights, tagHashes },
    fingerprints,
  }
}

