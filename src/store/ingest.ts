/**
 * @module The one loader. `ventureql import` (JSON Lines files) and the synthetic generator both
 * write through an `Ingestor`, so generated and imported data go through the same validation and
 * the same derivations.
 *
 * Record format (JSON Lines): one object per line, `{"type": "company" | "investor" | "funding",
 * "record": {...}}`, the record in the spec's own shape (company detail 2.3, investor 2.11/2.12,
 * funding event 2.10); see src/store/README.md for the accepted extensions. The envelope keeps the
 * record's own keys untouched (an investor record has a `type` field of its own).
 *
 * Hot path: raw better-sqlite3 prepared statements, records committed in batches of `batchSize`
 * per transaction. A load into an empty database drops the secondary indexes first and rebuilds
 * them at `finish()`, which also materialises the derived data (investments, company funding
 * totals, investor aggregates of spec 2.11), runs ANALYZE and bumps the data version.
 */
import type BetterSqlite3 from 'better-sqlite3'
import { datasets, type DatasetDef, type FieldDef } from '../catalog/index.js'
import type { SqliteVentureDb } from './open.js'
import { bumpDataVersionSync } from './open.js'
import { deferIndexes, restoreDeferredIndexes } from './indexes.js'
import { DETAIL_TABLES, TIME_SERIES_NAMES } from './schema/detail-tables.js'
import {
  parseRecord, type CompanyRecord, type FundingRecord, type InvestorRecord, type ParsedRecord, type Point,
} from './record-schemas.js'
import { materialise } from './materialise.js'
import { recordCompleteOwnersSync } from './owner-integrity.js'
import { refreshSearchIndex } from './search-index.js'
import { linkOf } from './sql-names.js'

export interface IngestOptions {
  /** Records per transaction (default 5000). */
  readonly batchSize?: number
  /**
   * Drop secondary indexes during the load and rebuild them at the end. Default: only when the
   * database holds no companies yet (re-indexing a large database for a small import would cost
   * more than it saves).
   */
  readonly deferIndexes?: boolean
  /**
   * Trade durability for speed while loading (journal off, no fsync): for a file nobody else has
   * open, such as the output of `ventureql generate`. Restored at `finish()`. Default false.
   */
  readonly unsafeFast?: boolean
}

export interface IngestReject {
  /** 1-based line number (or record index) the caller passed. */
  readonly line: number
  readonly reason: string
}

export interface IngestSummary {
  /**
   * Records written per dataset: every company, investor and funding event the load stored,
   * including those that replaced a stored record with the same id (or an earlier one of the same
   * load). What the tables gained is `added`.
   */
  readonly companies: number
  readonly investors: number
  /** Funding events written: funding records, and the items of company records' `funding` arrays. */
  readonly fundings: number
  /** Of `fundings`, the items of company records' `funding` arrays. */
  readonly embeddedFundings: number
  /**
   * Rows each table gained: counted before the load's first write and after its derived data (so
   * investor links resolved from slugs are in), in the load's own view of the database. A record
   * that replaced a stored one adds no row; a replaced funding event with fewer investors can make
   * `fundingInvestors` negative.
   */
  readonly added: RowCounts
  readonly rejected: readonly IngestReject[]
  readonly dataVersion: number
  /**
   * What the load wrote, when the loader tracks it (PostgreSQL, into a schema that already held
   * companies). Absent: everything may have changed (a load into an empty schema, or SQLite).
   */
  readonly changed?: IngestChanged
}

const companies = datasets.companies
const investors = datasets.investors
const fundings = datasets.fundings

/** Rows of the tables a load adds records to (`IngestSummary.added`). */
export interface RowCounts {
  readonly companies: number
  readonly investors: number
  readonly fundings: number
  /** Investor links of funding events (`funding_investors`). */
  readonly fundingInvestors: number
}

/** One statement counting the rows of `RowCounts` (SQLite and PostgreSQL). */
export const ROW_COUNTS_SQL = `select (select count(*) from "${companies.table}") as companies, (select count(*) from "${investors.table}") as investors, `
  + `(select count(*) from "${fundings.table}") as fundings, (select count(*) from ${linkOf('fundings', 'investors').table}) as funding_investors`

/** `ROW_COUNTS_SQL`'s row as numbers (PostgreSQL returns counts as text). */
export function rowCountsOf(row: Record<string, unknown> | undefined): RowCounts {
  const n = (k: string) => Number(row?.[k] ?? 0)
  return Object.freeze({ companies: n('companies'), investors: n('investors'), fundings: n('fundings'), fundingInvestors: n('funding_investors') })
}

function rowCountsDelta(after: RowCounts, before: RowCounts): RowCounts {
  return Object.freeze({
    companies: after.companies - before.companies, investors: after.investors - before.investors,
    fundings: after.fundings - before.fundings, fundingInvestors: after.fundingInvestors - before.fundingInvestors,
  })
}

/** A catalog field by name, failing loudly at load time if the catalog no longer has it. */
function catalogField(ds: DatasetDef, name: string): FieldDef {
  const f = ds.fields[name]
  if (!f) throw new Error(`store: the loader derives ${ds.name}.${name}, which the catalog does not define`)
  return f
}

// Company fields the loader derives when a record does not give them (spec 2.3 and 4.1).
const EMPLOYEES = catalogField(companies, 'employees').name
const EMPLOYEES_MONTH_AGO = catalogField(companies, 'employees_month_ago').name
const EMPLOYEES_ADDED = catalogField(companies, 'employees_added_in_month').name
const EMPLOYEES_MOM = catalogField(companies, 'employees_mom').name
const MOMENTUM = catalogField(companies, 'momentum_score').name
const STAGE = catalogField(companies, 'stage').name
/** The stage of a company whose record gives none (spec 3 names that state; grammar-docs/guides/serving.md, "Missing values"). */
const UNKNOWN_STAGE = 'Unknown'
const HAS_MOBILE = catalogField(companies, 'has_mobile').name
const HAS_IOS = catalogField(companies, 'has_ios_store').name
const HAS_ANDROID = catalogField(companies, 'has_android_store').name
const PLAY_CATEGORIES = catalogField(companies, 'play_categories').name
const IOS_CATEGORIES = catalogField(companies, 'ios_store_categories').name
const INVESTOR_INDUSTRIES = catalogField(investors, 'industries')

/** One row per call (better-sqlite3 statements have this shape; the PostgreSQL writer buffers). */
export interface RowWrite {
  run(...values: unknown[]): unknown
}

/** An owner's tag, link or tech-stack rows, duplicates ignored. */
export interface PairWrite {
  pairs(owner: number, values: readonly (string | number)[]): void
}

/** A dataset table's rows, in the order of `columns`. */
export interface DatasetWrite {
  readonly columns: readonly FieldDef[]
  /**
   * Writes the row, replacing one with the same primary key, and says whether it did: the caller
   * then deletes the replaced row's dependent rows (tags, details, links). Asking the primary key
   * instead of trusting "the database was empty when the load began" also catches a record
   * repeated within one load.
   */
  upsert(row: unknown[]): boolean
}

/**
 * Where the loader's rows go, table by table: prepared statements on SQLite (`Ingestor`), COPY
 * buffers on PostgreSQL (`PostgresIngestor`, ingest-postgres.ts). Each member names its semantics:
 * `insert or replace` by the table's primary key unless said otherwise.
 */
export interface LoadWriters {
  readonly company: DatasetWrite
  readonly investor: DatasetWrite
  readonly funding: DatasetWrite
  /** Company tag fields and their writers (insert or ignore). */
  readonly companyTags: readonly (readonly [FieldDef, PairWrite])[]
  readonly investorTag: PairWrite
  /** Deletes by owner id. */
  readonly deleteInvestorTags: RowWrite
  readonly deleteCompanyDetails: readonly RowWrite[]
  readonly companyExtra: RowWrite
  readonly fundingInvestor: PairWrite
  readonly deleteFundingDetails: readonly RowWrite[]
  /** (funding_id, slug), resolved at finish() (plain insert). */
  readonly pendingSlug: RowWrite
  readonly fundingExtra: RowWrite
  readonly iosApp: RowWrite
  readonly androidApp: RowWrite
  /** Merges by event id: a non-null value replaces, a null keeps what is there. */
  readonly acquisition: RowWrite
  readonly story: RowWrite
  readonly person: RowWrite
  readonly contact: RowWrite
  readonly tech: PairWrite
  readonly point: RowWrite
  readonly investorDetail: RowWrite
  readonly deleteFilings: RowWrite
  /** Plain insert. */
  readonly filing: RowWrite
}

function datasetWriter(sqlite: BetterSqlite3.Database, ds: DatasetDef): DatasetWrite {
  const columns = datasetColumns(ds)
  const names = columns.map((f) => `"${f.column}"`).join(', ')
  const values = `(${names}) values (${columns.map(() => '?').join(', ')})`
  const insert = sqlite.prepare(`insert or replace into "${ds.table}" ${values}`)
  const insertNew = sqlite.prepare(`insert into "${ds.table}" ${values} on conflict do nothing`)
  return {
    columns,
    upsert(row) {
      // Insert only when the primary key is new (`changes` 0 tells that the record repeats one).
      if (insertNew.run(row).changes > 0) return false
      insert.run(row)
      return true
    },
  }
}

/** The columns a dataset writer takes, in order (the catalog's stored, non-tag fields). */
export function datasetColumns(ds: DatasetDef): FieldDef[] {
  return Object.values(ds.fields).filter((f) => f.column && f.type.kind !== 'tags')
}

function rowOf(writer: DatasetWrite, values: Record<string, unknown>): unknown[] {
  return writer.columns.map((f) => {
    const v = values[f.name]
    if (v === undefined || v === null) return f.nullable ? null : 0
    return v
  })
}

/** The record's text of a field when it is not already the decoded (stored) value, else null. */
function rawTextIfDifferent(raw: unknown, decoded: unknown): string | null {
  return typeof raw === 'string' && raw !== decoded ? raw : null
}

function latest(points: readonly Point[]): Point | undefined {
  let best: Point | undefined
  for (const p of points) if (p.score && (!best || p.recorded_at > best.recorded_at)) best = p
  return best
}

/** What a load wrote, for refreshing what is derived from it elsewhere (the search index). */
export interface IngestChanged {
  /** Companies written, and companies whose funding events were written (their totals moved). */
  readonly companyIds: readonly number[]
  /** Investors written, and investors linked to funding events written (their aggregates moved). */
  readonly investorIds: readonly number[]
}

/**
 * The loader's backend-independent half: validation (`parseRecord`), the rows each record becomes
 * and the loader's derivations, counts and rejects. The subclasses give the writers and the batch
 * boundaries: `Ingestor` (SQLite, synchronous) and `PostgresIngestor` (ingest-postgres.ts, COPY).
 */
export abstract class RecordLoader {
  protected readonly batchSize: number
  protected readonly rejectedList: IngestReject[] = []
  protected readonly tally = { companies: 0, investors: 0, fundings: 0, embeddedFundings: 0 }
  /** `ROW_COUNTS_SQL` before the load's first write (set by the subclass). */
  protected rowsBefore: RowCounts = rowCountsOf(undefined)
  protected inBatch = 0
  protected nextFundingId = 1
  protected nextStoryId = 1
  protected finished = false
  protected w!: LoadWriters
  /** Set by a subclass that reports what it wrote (`IngestChanged`); null: not tracked. */
  protected changed: { companies: Set<number>; investors: Set<number>; fundings: Set<number> } | null = null

  constructor(batchSize: number) {
    this.batchSize = Math.max(1, batchSize)
  }

  /** Validates one JSON Lines envelope and writes it; a bad record is remembered and skipped. */
  add(envelope: unknown, line: number): boolean {
    const parsed = parseRecord(envelope)
    if (!parsed.ok) {
      this.rejectedList.push(Object.freeze({ line, reason: parsed.reason }))
      return false
    }
    this.write(parsed.value)
    return true
  }

  /** Records a line that could not even be read as JSON. */
  reject(line: number, reason: string): void {
    this.rejectedList.push(Object.freeze({ line, reason }))
  }

  write(parsed: ParsedRecord): void {
    if (this.finished) throw new Error('store: Ingestor.write after finish()')
    if (this.inBatch === 0) this.beginBatch()
    switch (parsed.type) {
      case 'company': this.#writeCompany(parsed.record, parsed.raw); this.tally.companies++; break
      case 'investor': this.#writeInvestor(parsed.record); this.tally.investors++; break
      case 'funding': this.#writeFunding(parsed.record); this.tally.fundings++; break
    }
    if (++this.inBatch >= this.batchSize) this.commitBatch()
  }

  /** Records written so far (funding events: funding records and company records' funding items) and rejected. */
  get counts(): { readonly companies: number; readonly investors: number; readonly fundings: number; readonly embeddedFundings: number; readonly rejected: number } {
    return { ...this.tally, rejected: this.rejectedList.length }
  }

  /**
   * A promise to await before writing more, while earlier batches are still on their way to the
   * database (PostgreSQL); undefined when there is nothing to wait for (always on SQLite).
   */
  drain(): Promise<void> | undefined {
    return undefined
  }

  protected abstract beginBatch(): void
  protected abstract endBatch(): void

  protected commitBatch(): void {
    if (this.inBatch > 0) this.endBatch()
    this.inBatch = 0
  }

  /** `rowsAfter`: `ROW_COUNTS_SQL` once the load's rows and derived data are written. */
  protected summary(dataVersion: number, rowsAfter: RowCounts, changed?: IngestChanged): IngestSummary {
    return Object.freeze({
      ...this.tally, added: rowCountsDelta(rowsAfter, this.rowsBefore), rejected: Object.freeze([...this.rejectedList]), dataVersion,
      ...(changed ? { changed } : {}),
    })
  }

  #writeCompany(r: CompanyRecord, raw: Record<string, unknown>): void {
    const w = this.w
    const id = r[companies.primaryKey] as number
    this.changed?.companies.add(id)

    const values: Record<string, unknown> = { ...r }
    // Stored as the value every view shows for it, so that filtering on what is shown finds it.
    if (values[STAGE] == null) values[STAGE] = UNKNOWN_STAGE
    const employees = r[EMPLOYEES] as number | null
    const monthAgo = r[EMPLOYEES_MONTH_AGO] as number | null
    if (values[EMPLOYEES_ADDED] == null && employees != null && monthAgo != null) values[EMPLOYEES_ADDED] = employees - monthAgo
    if (values[EMPLOYEES_MOM] == null && employees != null && monthAgo) values[EMPLOYEES_MOM] = Math.round(((employees - monthAgo) / monthAgo) * 10000) / 100
    const momentum = latest(r.svc_weekly_momentum as Point[])
    if (values[MOMENTUM] == null && momentum?.score) values[MOMENTUM] = Number(momentum.score.text)
    const ios = r.ios_store_apps
    const android = r.android_store_apps
    if (ios.length > 0) values[HAS_IOS] = 1
    if (android.length > 0) values[HAS_ANDROID] = 1
    if (values[HAS_IOS] === 1 || values[HAS_ANDROID] === 1) values[HAS_MOBILE] = 1
    if (w.company.upsert(rowOf(w.company, values))) for (const del of w.deleteCompanyDetails) del.run(id)

    for (const [f, insert] of w.companyTags) {
      let list = r[f.name] as string[]
      const apps = f.name === PLAY_CATEGORIES ? android : f.name === IOS_CATEGORIES ? ios : undefined
      if (apps && apps.length > 0) {
        list = [...list]
        for (const app of apps) if (app.category && !list.includes(app.category)) list.push(app.category)
      }
      insert.pairs(id, list)
    }

    const growth = latest(r.growth_scores as Point[])
    // Raw texts only where they differ from the stored form (the compact YYYYMMDD date, a stage
    // spelled 'exited (acquired)'): most records spell both as stored, and a row per company of
    // copies took ~26 MB per million companies.
    const lastFundingRaw = rawTextIfDifferent(raw[fundingDateField], r[fundingDateField])
    const stageRaw = rawTextIfDifferent(raw[stageField], r[stageField])
    if (growth || lastFundingRaw != null || stageRaw != null) {
      w.companyExtra.run(id, lastFundingRaw, stageRaw, growth?.score ? Number(growth.score.text) : null)
    }

    // Funding items of the company detail become funding events (2.3.3 → 2.10).
    for (const item of r.funding) {
      const fundingId = item.id ?? this.nextFundingId++
      if (fundingId >= this.nextFundingId) this.nextFundingId = fundingId + 1
      const replaced = w.funding.upsert(rowOf(w.funding, {
        [fundings.primaryKey]: fundingId,
        company_id: id,
        company_name: r.name,
        series: item.series,
        rounds_funding_date: item.funding_date,
        amount: item.amount,
        currency: item.currency,
        news_url: item.news_url,
        region: r.location,
        city: r.city,
        state: r.state,
        country: r.country,
        created_on: item.created_on,
      }))
      this.tally.fundings++
      this.tally.embeddedFundings++
      this.#writeFundingLinks(fundingId, replaced, item.investor_ids, [], item.source, item.investors)
    }

    r.ios_store_apps.forEach((a, i) => w.iosApp.run(id, i, a.ios_store_id, a.app_name, a.developer_url, a.ios_store_url, a.category))
    r.android_store_apps.forEach((a, i) => w.androidApp.run(id, i, a.id, a.app_name, a.package_id, a.play_url, a.category))
    for (const a of r.acquired_by) w.acquisition.run(a.event_id, a.company_id, a.company_name, a.company_domain, id, r.name, r.website, a.closed_date)
    for (const a of r.acquired_companies) w.acquisition.run(a.event_id, id, r.name, r.website, a.company_id, a.company_name, a.company_domain, a.closed_date)
    for (const s of r.stories) {
      const storyId = s.id ?? this.nextStoryId++
      if (storyId >= this.nextStoryId) this.nextStoryId = storyId + 1
      w.story.run(storyId, id, s.title, s.url, s.published_at ?? s.date, s.source_title ?? s.source)
    }
    r.people.forEach((p, i) => w.person.run(id, i, p.name, p.title, p.path))
    for (const c of r.contacts) w.contact.run(id, c.name, c.email)
    w.tech.pairs(id, r.tech_stack)
    for (const series of TIME_SERIES_NAMES) {
      const points = r[series] as Point[]
      for (let i = 0; i < points.length; i++) {
        const p = points[i]!
        w.point.run(id, series, i, p.recorded_at, p.score?.text ?? null, p.score?.isString ? 1 : 0)
      }
    }
  }

  #writeInvestor(r: InvestorRecord): void {
    const w = this.w
    const id = r[investors.primaryKey] as number
    this.changed?.investors.add(id)
    w.investor.upsert(rowOf(w.investor, r))
    w.deleteInvestorTags.run(id)
    const given = r[INVESTOR_INDUSTRIES.name] as string[]
    w.investorTag.pairs(id, given)
    w.investorDetail.run(id, r.portfolio_path, r.funding_rounds_path, r.resource_type, given.length === 0 ? 1 : 0)
    w.deleteFilings.run(id)
    r.most_recent_filings.forEach((f, i) => w.filing.run(id, i, f.entity_name, f.total_offering, f.total_sold, f.filing_date, f.form))
  }

  #writeFunding(r: FundingRecord): void {
    const w = this.w
    const id = r[fundings.primaryKey] as number
    this.changed?.companies.add(r.company_id as number)
    if (id >= this.nextFundingId) this.nextFundingId = id + 1
    const replaced = w.funding.upsert(rowOf(w.funding, r))
    this.#writeFundingLinks(id, replaced, r.investor_ids, r.investor_slugs, r.source, r.investors)
  }

  #writeFundingLinks(fundingId: number, replaced: boolean, ids: readonly number[], slugs: readonly string[], source: string | null | undefined, names: string | null | undefined): void {
    const w = this.w
    if (this.changed) {
      this.changed.fundings.add(fundingId)
      for (const investor of ids) this.changed.investors.add(investor)
    }
    if (replaced) for (const del of w.deleteFundingDetails) del.run(fundingId)
    w.fundingInvestor.pairs(fundingId, ids)
    // Slugs resolve to ids at finish(): the investor records may come later in the input.
    for (const slug of slugs) w.pendingSlug.run(fundingId, slug)
    // Names are kept only when they cannot be looked up (no ids): they are derivable otherwise.
    const keepNames = ids.length === 0 && names != null
    if (source != null || keepNames || slugs.length > 0) w.fundingExtra.run(fundingId, source ?? null, keepNames ? names : null, slugs.length ? slugs.join(',') : null)
  }
}

/**
 * The loader on SQLite: raw better-sqlite3 prepared statements, records committed in batches of
 * `batchSize` per transaction (readers may see a load's earlier batches before `finish()`).
 */
export class Ingestor extends RecordLoader {
  readonly #sqlite: BetterSqlite3.Database
  readonly #unsafeFast: boolean
  #mmapSize = 0
  #cacheSize = 0
  /** Whether the load dropped the secondary indexes and rebuilds them at `finish()` (its 'indexes' phase). */
  readonly rebuildsIndexes: boolean

  constructor(vdb: SqliteVentureDb, options: IngestOptions = {}) {
    super(options.batchSize ?? 5000)
    const sqlite = vdb.sqlite
    this.#sqlite = sqlite
    this.#unsafeFast = options.unsafeFast ?? false
    const fresh = sqlite.prepare(`select count(*) from "${companies.table}"`).pluck().get() === 0
    if (this.#unsafeFast) {
      // better-sqlite3 opens connections in SQLite's defensive mode, which silently refuses
      // journal_mode = OFF (the pragma answers 'wal' and changes nothing): without leaving it,
      // every "fast" load went through the WAL, each page written twice.
      sqlite.unsafeMode(true)
      sqlite.pragma('journal_mode = OFF')
      sqlite.pragma('synchronous = OFF')
      // Reads through the page cache, not the memory map, while loading: the map made every page
      // of the growing file resident (peak RSS 1.7 GB for a million companies) for no speed.
      this.#mmapSize = sqlite.pragma('mmap_size', { simple: true }) as number
      sqlite.pragma('mmap_size = 0')
    }
    this.#cacheSize = sqlite.pragma('cache_size', { simple: true }) as number
    sqlite.pragma('cache_size = -262144')
    // Temporary b-trees (DISTINCT, EXCEPT, IN lists) stay in files, not in memory: the typo
    // dictionary's DISTINCT over every indexed word's deletion keys alone held ~1 KB per company
    // (ventureql generate, peak RSS by phase: /usr/bin/time -v and VmHWM per phase).
    sqlite.pragma('temp_store = DEFAULT')
    this.rowsBefore = rowCountsOf(sqlite.prepare(ROW_COUNTS_SQL).get() as Record<string, unknown>)
    this.rebuildsIndexes = options.deferIndexes ?? fresh
    if (this.rebuildsIndexes) deferIndexes(sqlite)
    // Batches commit as they fill, so readers can see a half-loaded dataset before finish(). Moving
    // the data version now keys whatever they cache meanwhile (totals, page boundaries) to a version
    // that finish() moves past again, so nothing computed from partial data outlives the load.
    bumpDataVersionSync(sqlite)
    sqlite.exec('create temp table if not exists pending_funding_slugs (funding_id integer not null, slug text not null)')
    const maxId = (table: string, column: string) => Number(sqlite.prepare(`select coalesce(max("${column}"), 0) from "${table}"`).pluck().get())
    this.nextFundingId = maxId(fundings.table, fundings.fields[fundings.primaryKey]!.column!) + 1
    this.nextStoryId = maxId(DETAIL_TABLES.stories, 'id') + 1
    this.w = prepareStatements(sqlite)
  }

  protected beginBatch(): void {
    this.#sqlite.exec('begin')
  }

  protected endBatch(): void {
    this.#sqlite.exec('commit')
  }

  /**
   * Commits, materialises derived data, rebuilds indexes, analyses and bumps the data version.
   * `onStep` reports the phases (they take seconds on a million companies).
   */
  finish(onStep?: (step: string) => void): IngestSummary {
    if (this.finished) throw new Error('store: Ingestor.finish called twice')
    this.commitBatch()
    this.finished = true
    const sqlite = this.#sqlite
    let rowsAfter = this.rowsBefore
    sqlite.transaction(() => {
      materialise(sqlite, onStep)
      rowsAfter = rowCountsOf(sqlite.prepare(ROW_COUNTS_SQL).get() as Record<string, unknown>)
    })()
    // After materialising: search ranks order by derived figures (total_funding, portfolio_size).
    onStep?.('search index')
    refreshSearchIndex(sqlite)
    onStep?.('indexes')
    restoreDeferredIndexes(sqlite, { force: true })
    onStep?.('analyze')
    // Sampled statistics: a full ANALYZE of a million-company database takes about a minute.
    sqlite.pragma('analysis_limit = 2000')
    sqlite.exec('analyze')
    sqlite.exec('drop table if exists temp.pending_funding_slugs')
    if (this.#unsafeFast) {
      sqlite.pragma('journal_mode = WAL')
      sqlite.pragma('synchronous = NORMAL')
      sqlite.unsafeMode(false)
    }
    // The version moves after the journal is back: the first write in WAL mode settles the
    // connection, without which a checkpoint right after a fast load failed with SQLITE_LOCKED.
    const version = bumpDataVersionSync(sqlite)
    // Under the new version: which link and tag tables a count may be read from alone. Still
    // without the memory map: the check reads every tag and link table whole, which mapped made
    // them resident on top of the page cache.
    onStep?.('integrity')
    recordCompleteOwnersSync(sqlite, version)
    if (this.#unsafeFast) sqlite.pragma(`mmap_size = ${this.#mmapSize}`)
    // The loader's page cache goes back to the connection's size: a connection kept open after
    // the load (an import into a served database) does not hold on to it.
    sqlite.pragma(`cache_size = ${this.#cacheSize}`)
    return this.summary(version, rowsAfter)
  }
}

const fundingDateField = catalogField(companies, 'last_funding_date').name
const stageField = catalogField(companies, 'stage').name

/**
 * `<head> values (?, ?), (?, ?), ...`: an owner's tag, link and tech-stack rows in one statement
 * instead of one call each (a company has ~12 such rows; each better-sqlite3 call costs more than
 * SQLite's insert of a two-column row). Statements per row count, prepared on first use.
 */
class PairInsert {
  static readonly MAX_ROWS = 16
  readonly #sqlite: BetterSqlite3.Database
  readonly #head: string
  readonly #byRows: BetterSqlite3.Statement[] = []

  constructor(sqlite: BetterSqlite3.Database, head: string) {
    this.#sqlite = sqlite
    this.#head = head
  }

  pairs(owner: number, values: readonly (string | number)[]): void {
    for (let start = 0; start < values.length; start += PairInsert.MAX_ROWS) {
      const rows = Math.min(PairInsert.MAX_ROWS, values.length - start)
      const params: (string | number)[] = new Array(rows * 2)
      for (let k = 0; k < rows; k++) {
        params[2 * k] = owner
        params[2 * k + 1] = values[start + k]!
      }
      this.#statement(rows).run(params)
    }
  }

  #statement(rows: number): BetterSqlite3.Statement {
    let statement = this.#byRows[rows]
    if (!statement) {
      statement = this.#sqlite.prepare(`${this.#head} values ${Array.from({ length: rows }, () => '(?, ?)').join(', ')}`)
      this.#byRows[rows] = statement
    }
    return statement
  }
}

function prepareStatements(sqlite: BetterSqlite3.Database): LoadWriters {
  const t = DETAIL_TABLES
  const tagInsert = (f: FieldDef) => new PairInsert(sqlite, `insert or ignore into "${f.tags!.table}" ("${f.tags!.ownerColumn}", "${f.tags!.valueColumn}")`)
  const companyTagFields = Object.values(companies.fields).filter((f) => f.tags)
  const investorLink = investors.fields[investors.primaryKey]!
  void investorLink
  const deleteFor = (table: string, column: string) => sqlite.prepare(`delete from "${table}" where "${column}" = ?`)
  return {
    company: datasetWriter(sqlite, companies),
    investor: datasetWriter(sqlite, investors),
    funding: datasetWriter(sqlite, fundings),
    companyTags: companyTagFields.map((f) => [f, tagInsert(f)] as const),
    investorTag: tagInsert(INVESTOR_INDUSTRIES),
    deleteInvestorTags: deleteFor(INVESTOR_INDUSTRIES.tags!.table, INVESTOR_INDUSTRIES.tags!.ownerColumn),
    deleteCompanyDetails: [
      ...companyTagFields.map((f) => deleteFor(f.tags!.table, f.tags!.ownerColumn)),
      deleteFor(t.companyExtra, 'company_id'), deleteFor(t.stories, 'company_id'), deleteFor(t.people, 'company_id'),
      deleteFor(t.contacts, 'company_id'), deleteFor(t.techStack, 'company_id'), deleteFor(t.iosApps, 'company_id'),
      deleteFor(t.androidApps, 'company_id'), deleteFor(t.timeSeries, 'company_id'),
    ],
    companyExtra: sqlite.prepare(`insert or replace into ${t.companyExtra} (company_id, last_funding_date_raw, stage_raw, growth_score) values (?, ?, ?, ?)`),
    fundingInvestor: new PairInsert(sqlite, 'insert or ignore into funding_investors (funding_id, investor_id)'),
    deleteFundingDetails: [
      deleteFor('funding_investors', 'funding_id'), deleteFor(t.fundingExtra, 'funding_id'),
      sqlite.prepare('delete from temp.pending_funding_slugs where funding_id = ?'),
    ],
    pendingSlug: sqlite.prepare('insert into temp.pending_funding_slugs (funding_id, slug) values (?, ?)'),
    fundingExtra: sqlite.prepare(`insert or replace into ${t.fundingExtra} (funding_id, source, investor_names, investor_slugs) values (?, ?, ?, ?)`),
    iosApp: sqlite.prepare(`insert or replace into ${t.iosApps} (company_id, position, ios_store_id, app_name, developer_url, ios_store_url, category) values (?, ?, ?, ?, ?, ?, ?)`),
    androidApp: sqlite.prepare(`insert or replace into ${t.androidApps} (company_id, position, id, app_name, package_id, play_url, category) values (?, ?, ?, ?, ?, ?, ?)`),
    acquisition: sqlite.prepare(`insert into ${t.acquisitions} (event_id, acquirer_id, acquirer_name, acquirer_domain, acquired_id, acquired_name, acquired_domain, closed_date)
      values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (event_id) do update set
        acquirer_id = coalesce(excluded.acquirer_id, acquirer_id), acquirer_name = coalesce(excluded.acquirer_name, acquirer_name),
        acquirer_domain = coalesce(excluded.acquirer_domain, acquirer_domain), acquired_id = coalesce(excluded.acquired_id, acquired_id),
        acquired_name = coalesce(excluded.acquired_name, acquired_name), acquired_domain = coalesce(excluded.acquired_domain, acquired_domain),
        closed_date = coalesce(excluded.closed_date, closed_date)`),
    story: sqlite.prepare(`insert or replace into ${t.stories} (id, company_id, title, url, published_at, source_title) values (?, ?, ?, ?, ?, ?)`),
    person: sqlite.prepare(`insert or replace into ${t.people} (company_id, position, name, title, path) values (?, ?, ?, ?, ?)`),
    contact: sqlite.prepare(`insert or replace into ${t.contacts} (company_id, name, email) values (?, ?, ?)`),
    tech: new PairInsert(sqlite, `insert or ignore into ${t.techStack} (company_id, title)`),
    point: sqlite.prepare(`insert or replace into ${t.timeSeries} (company_id, series, position, recorded_at, score, score_is_string) values (?, ?, ?, ?, ?, ?)`),
    investorDetail: sqlite.prepare(`insert or replace into ${t.investorDetails} (investor_id, portfolio_path, funding_rounds_path, resource_type, industries_derived) values (?, ?, ?, ?, ?)`),
    deleteFilings: deleteFor(t.investorFilings, 'investor_id'),
    filing: sqlite.prepare(`insert into ${t.investorFilings} (investor_id, position, entity_name, total_offering, total_sold, filing_date, form) values (?, ?, ?, ?, ?, ?, ?)`),
  }
}

/** Convenience: ingests already-shaped envelopes (tests, the fixture) and finishes. */
export function ingestAll(vdb: SqliteVentureDb, envelopes: Iterable<unknown>, options?: IngestOptions): IngestSummary {
  const ingestor = new Ingestor(vdb, options)
  let line = 0
  for (const e of envelopes) ingestor.add(e, ++line)
  return ingestor.finish()
}
