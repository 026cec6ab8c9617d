/**
 * @module The deterministic synthetic generator. It yields JSON Lines envelopes in the spec's own
 * record shapes (investor 2.11/2.12, company detail 2.3 with its funding array, a few standalone
 * funding events 2.10 named by investor slug), which the caller writes through the same
 * `Ingestor` as `ventureql import` (or to a .jsonl file). The same seed and size always give the
 * same records.
 *
 * Shapes aim at realism where filters and plans notice: skewed (log-normal) amounts, headcounts
 * and traffic; a stage distribution with series letters consistent with the stage; long-tailed tag
 * frequencies; mostly-USA metro regions; numerics as strings where the spec shows strings;
 * NULLs in most nullable fields; ~1 investor per 20 companies with log-normal activity by
 * investor type (a long tail in a handful of companies, the most active in a few thousand of a
 * million) and follow-on rounds; ~1.5 funding events per company, the last one of the stage's
 * series; a few time series points for a subset of companies.
 *
 * Dates are relative to `asOf`, the generator's "today" (default: the UTC day of the call): every
 * date falls before it, last funding dates spread over the company's life up to the day before, so
 * "raised in past 3 months" and "within 1 year" match some companies when the data is served the
 * day it is generated, as they would on live data. The same seed, size and `asOf` always give the
 * same records; pass `asOf` wherever the records must not move with the calendar (tests, benches).
 * Coverage guarantees for small fixtures: every enum value occurs, and there are investors with
 * 0, exactly 1 and many portfolio companies.
 */
import { INVESTOR_TYPE, SERIES, STAGE } from '../../catalog/index.js'
import { Random } from './prng.js'
import * as V from './vocabulary.js'

export interface GenerateOptions {
  readonly companies: number
  readonly seed?: number
  /**
   * The generator's "today" (YYYY-MM-DD); every date falls before it. Default: today, UTC
   * (`todayUtc()`), so freshly generated data is as recent as live data. Part of what the records
   * depend on: the same seed, size and `asOf` give the same records.
   */
  readonly asOf?: string
}

/** The UTC day of `now` as YYYY-MM-DD: the default `asOf`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10)
}

/** `asOf` checked: a real calendar day YYYY-MM-DD (years 1900-9999), else a RangeError naming it. */
export function asOfDate(asOf: string | undefined): string {
  const day = asOf ?? todayUtc()
  const ms = Date.parse(`${day}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day || day < '1900-01-01') {
    throw new RangeError(`asOf must be a calendar day YYYY-MM-DD, got ${JSON.stringify(asOf)}`)
  }
  return day
}

export interface Envelope {
  readonly type: 'company' | 'investor' | 'funding'
  readonly record: Record<string, unknown>
}

const DAY_MS = 86_400_000

const dayCache = new Map<number, string>()

/** YYYY-MM-DD of a day number (days since 1970-01-01); cached, formatting dominated generation. */
function isoDay(day: number): string {
  let s = dayCache.get(day)
  if (s === undefined) {
    s = new Date(day * DAY_MS).toISOString().slice(0, 10)
    dayCache.set(day, s)
  }
  return s
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n))

function isoTime(day: number, seconds: number): string {
  const s = Math.floor(seconds) % 86_400
  return `${isoDay(day + Math.floor(seconds / 86_400))} ${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}`
}

function slugify(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
}

/** Stage → relative frequency (spec 3 values); unknown catalog values get a small weight. */
const STAGE_WEIGHTS: Readonly<Record<string, number>> = {
  'Unknown': 10, 'No Known Funding': 26, 'Pre Series A': 22, a: 13, b: 7, c: 4, d: 2, e: 1,
  f: 0.5, g: 0.3, h: 0.2, i: 0.1, 'Late': 3, 'Exited': 8,
}
const STAGE_TABLE = STAGE.values.map((v) => [v, STAGE_WEIGHTS[v] ?? 0.1] as const)
const LETTERS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] as const
const EARLY_SERIES = ['seed', 'angel', 'seed', 'convertible_note'] as const
const OTHER_SERIES = ['debt_financing', 'undisclosed', 'venture', 'private_equity'] as const

/** Median round size in U.S. dollars per series. */
function medianAmount(series: string): number {
  const letter = (LETTERS as readonly string[]).indexOf(series)
  if (letter >= 0) return 8_000_000 * Math.pow(1.6, letter)
  switch (series) {
    case 'angel': return 350_000
    case 'seed': return 1_800_000
    case 'convertible_note': return 900_000
    case 'debt_financing': return 6_000_000
    case 'private_equity': return 90_000_000
    default: return 4_000_000
  }
}

const INVESTOR_TYPE_WEIGHTS: Readonly<Record<string, number>> = { vc: 55, angel: 25, accelerator: 8, corporate: 7, private_equity: 5 }
/** Median relative activity (rounds joined) per investor type. */
const INVESTOR_ACTIVITY: Readonly<Record<string, number>> = { vc: 30, accelerator: 20, private_equity: 8, corporate: 6, angel: 2 }
const INVESTOR_TYPE_TABLE = INVESTOR_TYPE.values.map((v) => [v, INVESTOR_TYPE_WEIGHTS[v] ?? 2] as const)
const METRO_TABLE = V.METROS.map((m) => [m, m.weight] as const)
const CURRENCIES_ABROAD: Readonly<Record<string, string>> = { GBR: 'GBP', DEU: 'EUR', FRA: 'EUR', NLD: 'EUR', CAN: 'CAD', IND: 'INR', SWE: 'SEK', AUS: 'AUD', SGP: 'SGD', BRA: 'BRL', ISR: 'ILS' }

const OPTIONAL_COMPANY_KEYS: Readonly<Record<string, undefined>> = Object.fromEntries([
  'cached_uniques_week_ago', 'cached_uniques_month_ago', 'uniques_wow', 'uniques_mom',
  'cached_mobile_downloads_week_ago', 'cached_mobile_downloads_month_ago', 'mobile_downloads_wow', 'mobile_downloads_mom',
  'momentum_score', 'ios_store_apps', 'android_store_apps', 'acquired_by', 'stories', 'people', 'contacts', 'tech_stack',
  'growth_scores', 'employee_count', 'svc_weekly_momentum', 'est_monthly_uniques', 'microblog_mentions',
].map((k) => [k, undefined]))

/** Investors per company (spec scale: ~50k investors for 1M companies). */
export function investorCount(companies: number): number {
  return Math.max(6, Math.round(companies / 20))
}

export function* generateRecords(options: GenerateOptions): Generator<Envelope> {
  const n = Math.max(0, Math.floor(options.companies))
  const rng = new Random(options.seed ?? 1)
  const asOfDay = Math.floor(Date.parse(`${asOfDate(options.asOf)}T00:00:00Z`) / DAY_MS)
  const m = investorCount(n)

  //// investors ////
  const investorNames: string[] = []
  const investorSlugs: string[] = []
  const investorTypes: string[] = []
  const slugsSeen = new Set<string>()
  for (let k = 0; k < m; k++) {
    const id = k + 1
    const type = k < INVESTOR_TYPE.values.length ? INVESTOR_TYPE.values[k]! : rng.weighted(INVESTOR_TYPE_TABLE)
    const name = type === 'angel'
      ? `${rng.pick(V.FIRST_NAMES)} ${rng.pick(V.LAST_NAMES)}`
      : `${rng.pick(V.INVESTOR_WORDS)} ${rng.pick(V.INVESTOR_NOUNS)} ${rng.pick(V.INVESTOR_SUFFIXES[type] ?? ['Capital'])}`.trim()
    let slug = slugify(name)
    if (slugsSeen.has(slug)) slug = `${slug}-${id}`
    slugsSeen.add(slug)
    investorNames.push(name)
    investorTypes.push(type)
    investorSlugs.push(slug)
    const metro = rng.weighted(METRO_TABLE)
    const domain = type === 'angel' ? (rng.chance(0.2) ? `${slug}.com` : null) : `${slug.replace(/-/g, '')}.${rng.pick(V.TLDS)}`
    const filings: Record<string, unknown>[] = []
    if ((type === 'vc' || type === 'private_equity') && rng.chance(0.4)) {
      for (let f = rng.int(1, 3); f > 0; f--) {
        const offering = Math.round(rng.logNormal(type === 'vc' ? 60_000_000 : 400_000_000, 0.9) / 100_000) * 100_000
        filings.push({
          entity_name: `${name} Fund ${['I', 'II', 'III', 'IV', 'V'][rng.int(0, 4)]}, L.P.`,
          total_offering: offering,
          total_sold: Math.round(offering * (0.3 + 0.7 * rng.next())),
          filing_date: isoDay(asOfDay - rng.int(30, 2500)),
          form: rng.chance(0.8) ? 'D' : 'D/A',
        })
      }
    }
    const record: Record<string, unknown> = {
      investor_id: id,
      name,
      investor_domain: domain,
      angel_platform_page: rng.chance(0.6) ? `https://angel-platform.example/${slug}` : null,
      location: rng.chance(0.9) ? metro.region : null,
      type,
      city: rng.chance(0.9) ? rng.pick(metro.cities) : null,
      state: metro.state,
      country: metro.country,
      website: domain && rng.chance(0.9) ? `https://www.${domain}` : null,
      svc_slug: slug,
      portfolio_path: `/investors/${id}/portfolio`,
      funding_rounds_path: `/fundings?investor_slugs=${slug}`,
      resource_type: 'investor',
      most_recent_filings: filings,
    }
    if (rng.chance(0.1)) record.industries = rng.some(V.INDUSTRIES, rng.int(1, 4))
    yield { type: 'investor', record }
  }

  // Coverage: the last investor never invests, the one before it exactly once (in the first
  // funding event). Everyone else has an activity drawn from a log-normal whose median depends on
  // the investor type (an angel writes a few cheques, a large fund hundreds), and rounds pick
  // investors in proportion to it: a long tail of investors in a handful of companies, the most
  // active in a few thousand of a million (a Zipf draw over ranks gave the first investor 45,000).
  const idleInvestor = m
  const singleDealInvestor = m - 1
  const pool = Math.max(1, m - 2)
  const activity = new Float64Array(pool)
  let totalActivity = 0
  for (let k = 0; k < pool; k++) {
    totalActivity += rng.logNormal(INVESTOR_ACTIVITY[investorTypes[k]!] ?? 5, 1)
    activity[k] = totalActivity
  }
  let singleDealGiven = false

  //// companies ////
  let fundingId = 0
  let eventId = 0
  let storyId = 0
  /** An investor id by activity: binary search of the cumulative activities. */
  const drawInvestor = (): number => {
    const x = rng.next() * totalActivity
    let lo = 0
    let hi = pool - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (activity[mid]! <= x) lo = mid + 1
      else hi = mid
    }
    return lo + 1
  }
  const pickInvestors = (count: number, previous: readonly number[]): number[] => {
    const out: number[] = []
    // Follow-on: an investor of the previous round often takes part again (deals per company > 1).
    if (previous.length > 0 && rng.chance(0.6)) out.push(previous[rng.int(0, previous.length - 1)]!)
    for (let guard = 0; out.length < count && guard < count * 6; guard++) {
      const id = drawInvestor()
      if (!out.includes(id)) out.push(id)
    }
    return out
  }

  for (let k = 0; k < n; k++) {
    const id = k + 1
    // Coverage: the first companies walk through every stage, the next ones (Late) through every series.
    const coverSeries = k >= STAGE.values.length && k < STAGE.values.length + SERIES.values.length ? SERIES.values[k - STAGE.values.length]! : undefined
    const stage = k < STAGE.values.length ? STAGE.values[k]! : coverSeries ? 'Late' : rng.weighted(STAGE_TABLE)
    const base = `${rng.pick(V.NAME_STARTS)}${rng.pick(V.NAME_MIDDLES)}${rng.pick(V.NAME_ENDS)}`
    const name = `${base}${rng.pick(V.COMPANY_SUFFIXES)}`
    const domain = `${base.toLowerCase()}${k % 7 === 0 ? '' : id.toString(36)}.${rng.pick(V.TLDS)}`
    const metro = rng.weighted(METRO_TABLE)
    const usa = metro.country === 'USA'
    const foundedDay = asOfDay - rng.int(200, 6000)
    const addedDay = Math.min(asOfDay - 1, Math.max(Math.floor(Date.parse('2012-01-01') / DAY_MS), foundedDay + rng.int(30, 900)))
    const employees = Math.max(1, Math.round(rng.logNormal(stage === 'Late' || stage === 'Exited' ? 120 : 14, 1.1)))
    const growth = rng.normal() * 0.06 + 0.02
    const monthAgo = Math.max(1, Math.round(employees / (1 + growth)))
    const uniques = rng.chance(0.85) ? Math.round(rng.logNormal(20_000, 1.8)) : null
    const hasIos = rng.chance(0.15)
    const hasAndroid = rng.chance(0.12)

    // Funding history consistent with the stage: early rounds, then letters up to the stage's.
    const letterIndex = (LETTERS as readonly string[]).indexOf(stage)
    const seriesList: string[] = []
    if (stage === 'Pre Series A') for (let r = rng.int(1, 3); r > 0; r--) seriesList.push(rng.pick(EARLY_SERIES))
    else if (letterIndex >= 0) {
      if (rng.chance(0.8)) seriesList.push(rng.pick(EARLY_SERIES))
      if (rng.chance(0.2)) seriesList.push(rng.pick(EARLY_SERIES))
      for (let l = Math.max(0, letterIndex - rng.int(0, 2)); l <= letterIndex; l++) seriesList.push(LETTERS[l]!)
    } else if (stage === 'Late') {
      if (rng.chance(0.5)) seriesList.push('seed')
      // The stage is where the letters end: the top one is always there.
      for (let l = 0, top = rng.int(3, 7); l <= top; l++) if (l === top || rng.chance(0.7)) seriesList.push(LETTERS[l]!)
      if (rng.chance(0.4)) seriesList.push(rng.pick(OTHER_SERIES))
    } else if (stage === 'Exited') {
      for (let l = 0, top = rng.int(-1, 3); l <= top; l++) seriesList.push(l === 0 ? 'seed' : LETTERS[l - 1]!)
    } else if (stage === 'Unknown' && rng.chance(0.15)) seriesList.push(rng.pick(OTHER_SERIES))
    if (coverSeries) seriesList.push(coverSeries)

    const funding: Record<string, unknown>[] = []
    const standalone: Envelope[] = []
    // Rounds spread over the company's life so far, in order, each step jittered.
    const firstDay = foundedDay + rng.int(30, 200)
    const span = Math.max(seriesList.length, asOfDay - 1 - firstDay)
    const step = span / (seriesList.length + 0.5)
    let day = firstDay
    let previousIds: readonly number[] = []
    for (let r = 0; r < seriesList.length; r++) {
      const series = seriesList[r]!
      day = Math.min(asOfDay - 1, Math.max(day + 1, Math.round(firstDay + step * (r + rng.next() * 0.9))))
      const fid = ++fundingId
      const undisclosed = series === 'undisclosed' || rng.chance(0.06)
      const amount = undisclosed ? null : Math.round(rng.logNormal(medianAmount(series), 0.8) / 10_000) * 10_000
      const currency = !usa && rng.chance(0.6) ? (CURRENCIES_ABROAD[metro.country] ?? 'EUR') : 'USD'
      let ids = pickInvestors(series === 'angel' || series === 'seed' ? rng.int(1, 3) : rng.int(1, 4), previousIds)
      if (!singleDealGiven) {
        ids = [...ids, singleDealInvestor].filter((x) => x !== idleInvestor)
        singleDealGiven = true
      }
      previousIds = ids
      const names = ids.map((x) => investorNames[x - 1]!).join(', ')
      const fundingDate = isoDay(day)
      const createdOn = isoTime(day + rng.int(0, 20), rng.int(0, 86_399))
      const newsUrl = rng.chance(0.7) ? `https://news.example.com/a/${fid}` : null
      // A few events arrive as 2.10 records that name investors by slug, as the service's own
      // funding listing does; the loader resolves the slugs.
      if (rng.chance(0.05)) {
        standalone.push({
          type: 'funding',
          record: {
            id: String(fid), funding_id: String(fid), company_id: String(id), company_name: name,
            investors: names, investor_slugs: ids.map((x) => investorSlugs[x - 1]!).join(','),
            series, rounds_funding_date: fundingDate, amount, currency, news_url: newsUrl,
            industry: null, region: metro.region, city: null, state: metro.state, country: metro.country, created_on: createdOn,
          },
        })
        continue
      }
      funding.push({
        // Responses show an empty series string now and then (spec 4.11).
        id: fid, amount, currency, series: series !== coverSeries && r < seriesList.length - 1 && rng.chance(0.03) ? '' : series, funding_date: fundingDate, news_url: newsUrl,
        source: rng.chance(0.5) ? rng.pick(V.FUNDING_SOURCES) : null,
        investor_ids: ids, investors: names, created_on: rng.chance(0.85) ? createdOn : null,
      })
    }
    const lastDay = funding.length || standalone.length ? day : null

    const record: Record<string, unknown> = {
      id: String(id),
      name,
      description: rng.chance(0.8) ? `${name} builds ${rng.pick(V.KEYWORDS)} for ${rng.pick(V.INDUSTRIES).toLowerCase()} teams.` : null,
      website: domain,
      svc_score: rng.chance(0.9) ? String(Math.round(rng.logNormal(180, 1.0))) : null,
      employees: String(employees),
      employees_month_ago: rng.chance(0.9) ? String(monthAgo) : null,
      employees_6_months_ago: rng.chance(0.7) ? String(Math.max(1, Math.round(employees / (1 + growth * 6)))) : null,
      website_uniques: uniques === null ? null : String(uniques),
      mobile_downloads: hasIos || hasAndroid ? String(Math.round(rng.logNormal(5_000, 2))) : null,
      mobile_score: hasIos || hasAndroid ? String(Math.round(rng.logNormal(60, 0.8))) : null,
      // Stage as responses show it: the exits and 'no known funding' in their other spellings.
      stage: stage === 'Exited' ? rng.pick(['Exited', 'exited (acquired)', 'Exited (IPO)', 'Exited (Other)']) : stage === 'No Known Funding' && rng.chance(0.3) ? 'no known funding' : stage,
      total_funding: null,
      last_funding_amount: null,
      // Both forms occur (spec 2.3); the loader recomputes the value from the funding events.
      last_funding_date: lastDay === null ? null : rng.chance(0.3) ? isoDay(lastDay).replace(/-/g, '') : isoDay(lastDay),
      location: rng.chance(0.92) ? metro.region : null,
      city: rng.chance(0.9) ? rng.pick(metro.cities) : null,
      state: metro.state,
      zip: usa && rng.chance(0.7) ? `${metro.zipPrefix}${String(rng.int(0, 999)).padStart(3, '0')}` : null,
      country: rng.chance(0.97) ? metro.country : null,
      microblog_handle: rng.chance(0.6) ? `@${base.toLowerCase()}` : null,
      socialnet_handle: rng.chance(0.55) ? base.toLowerCase() : null,
      professionalnet_id: rng.chance(0.7) ? rng.int(1_000, 99_999_999) : null,
      added_date: isoTime(addedDay, rng.int(0, 86_399)),
      revenue_range: rng.chance(0.5) ? V.REVENUE_RANGES[Math.min(V.REVENUE_RANGES.length - 1, rng.skewedIndex(V.REVENUE_RANGES.length, 1.8))] : null,
      est_founding_date: rng.chance(0.85) ? isoDay(foundedDay) : null,
      business_models: rng.chance(0.85) ? rng.some(V.BUSINESS_MODELS, rng.int(1, 2)) : [],
      industries: rng.chance(0.92) ? rng.some(V.INDUSTRIES, rng.int(1, 3)) : [],
      // Catalog fields beyond spec 2.3 (GET /companies parameters of spec 4.1), by their catalog names.
      keywords: rng.chance(0.75) ? rng.some(V.KEYWORDS, rng.int(1, 5), 1.4) : [],
      funding,
      // Filled below for some companies. Declared here so every record has one shape: the loader
      // reads ~90 keys per record, and records of a thousand different shapes made each read a
      // megamorphic lookup. Undefined keys are absent from JSON.
      ...OPTIONAL_COMPANY_KEYS,
    }
    if (uniques !== null && rng.chance(0.8)) {
      const t = trailingMetric(rng, uniques, 0.05, 0.15)
      record.cached_uniques_week_ago = t.weekAgo
      record.cached_uniques_month_ago = t.monthAgo
      record.uniques_wow = t.weekOverWeek
      record.uniques_mom = t.monthOverMonth
    }
    if (record.mobile_downloads !== null) {
      const t = trailingMetric(rng, Number(record.mobile_downloads), 0.1, 0.3)
      record.cached_mobile_downloads_week_ago = t.weekAgo
      record.cached_mobile_downloads_month_ago = t.monthAgo
      record.mobile_downloads_wow = t.weekOverWeek
      record.mobile_downloads_mom = t.monthOverMonth
    }
    if (rng.chance(0.5)) record.momentum_score = Math.round(rng.normal() * 250) / 10
    if (hasIos) {
      record.ios_store_apps = Array.from({ length: rng.int(1, 2) }, (_, a) => ({
        developer_url: `https://${domain}`, ios_store_id: String(300_000_000 + id * 3 + a),
        ios_store_url: `https://apps.example.com/app/id${300_000_000 + id * 3 + a}`, app_name: a === 0 ? name : `${name} ${rng.pick(['Pro', 'Lite', 'Go'])}`,
        category: V.IOS_STORE_CATEGORIES[rng.skewedIndex(V.IOS_STORE_CATEGORIES.length, 1.5)],
      }))
    }
    if (hasAndroid) {
      record.android_store_apps = Array.from({ length: rng.int(1, 2) }, (_, a) => ({
        id: id * 3 + a, app_name: a === 0 ? name : `${name} ${rng.pick(['Pro', 'Lite', 'Go'])}`,
        package_id: `com.${base.toLowerCase()}.app${a || ''}`, company_id: id, company_name: name, company_domain: domain,
        play_url: `https://play.example.com/store/apps/details?id=com.${base.toLowerCase()}.app${a || ''}`,
        category: V.PLAY_CATEGORIES[rng.skewedIndex(V.PLAY_CATEGORIES.length, 1.5)],
      }))
    }
    if (stage === 'Exited' && k > 0 && rng.chance(0.5)) {
      const acquirer = rng.int(1, k)
      record.acquired_by = [{ event_id: ++eventId, closed_date: isoDay(Math.min(asOfDay - 1, day + rng.int(60, 900))), company_id: acquirer, company_name: null, company_domain: null }]
    }
    if (rng.chance(0.15)) {
      record.stories = Array.from({ length: rng.int(1, 4) }, () => ({
        id: ++storyId,
        title: `${name} ${rng.pick(['launches', 'expands', 'hires', 'partners with', 'announces'])} ${rng.pick(V.KEYWORDS)}`,
        url: `https://news.example.com/story/${storyId}`,
        date: `${isoTime(asOfDay - rng.int(1, 900), rng.int(0, 86_399))} UTC`,
        source: rng.pick(V.NEWS_SOURCES),
      }))
    }
    if (rng.chance(0.15)) {
      const people = Array.from({ length: rng.int(1, 4) }, (_, p) => {
        const person = `${rng.pick(V.FIRST_NAMES)} ${rng.pick(V.LAST_NAMES)}`
        return { name: person, title: p === 0 ? 'CEO' : rng.pick(V.TITLES), path: `https://professional.example.com/in/${slugify(person)}-${id}-${p}` }
      })
      record.people = people
      record.contacts = people.filter((_, p) => p < 2).map((p) => ({
        name: p.name, email: rng.chance(0.6) ? `${slugify(p.name).replace(/-/g, '.')}@${domain}` : null,
      }))
    }
    if (rng.chance(0.2)) record.tech_stack = rng.some(V.TECH, rng.int(2, 6), 1.3)
    if (rng.chance(0.12)) {
      record.growth_scores = points(rng, asOfDay, rng.int(3, 5), 7, () => String(Math.round(rng.normal() * 40 + 20)), ' UTC')
      record.employee_count = points(rng, asOfDay, rng.int(3, 5), 30, () => Math.max(1, Math.round(employees * (1 + rng.normal() * 0.05))), ' UTC')
      if (rng.chance(0.5)) record.svc_weekly_momentum = points(rng, asOfDay, rng.int(2, 4), 7, () => String(Math.round(rng.normal() * 150) / 10), ' UTC')
      if (uniques !== null && rng.chance(0.4)) record.est_monthly_uniques = points(rng, asOfDay, rng.int(2, 4), 30, () => Math.round(uniques * (1 + rng.normal() * 0.1)), ' +0000')
      record.microblog_mentions = []
    }
    yield { type: 'company', record }
    yield* standalone
  }
}

/** A short time series ending near `asOfDay`, one point every `stepDays`, oldest first. */
function points(rng: Random, asOfDay: number, count: number, stepDays: number, score: () => string | number, suffix: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  const end = asOfDay - rng.int(1, stepDays)
  for (let p = count - 1; p >= 0; p--) out.push({ recorded_at: `${isoTime(end - p * stepDays, 0)}${suffix}`, score: score() })
  return out
}

/**
 * A metric's value a week and a month ago, drawn around its current value with the given spreads,
 * and the percent changes since (two decimals; null where the earlier value is 0). Draws the week
 * first, then the month, so generated data stays the same for a seed.
 */
function trailingMetric(rng: Random, current: number, weekSpread: number, monthSpread: number) {
  const weekAgo = Math.round(current / (1 + rng.normal() * weekSpread))
  const monthAgo = Math.round(current / (1 + rng.normal() * monthSpread))
  const percentChange = (before: number) => (before > 0 ? Math.round(((current - before) / before) * 10_000) / 100 : null)
  return { weekAgo, monthAgo, weekOverWeek: percentChange(weekAgo), monthOverMonth: percentChange(monthAgo) }
}
