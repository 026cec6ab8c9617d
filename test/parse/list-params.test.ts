/**
 * The query-parameter front-end (parse/list-params.ts) on its own: what each format becomes in the
 * filter language, the issues for bad values, the date arithmetic of the phrases, the sort
 * parameter, and two properties (valid range text round-trips to the right operator; junk never
 * throws). The HTTP tests (test/http/companies.test.ts, fundings.test.ts) check the same parameters
 * against the fixture's rows.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { parseQuery } from '../../src/parse/index.js'
import { checkQuery } from '../../src/check/index.js'
import {
  FORMATS, FOUNDING_PHRASES, FUNDING_PHRASES, LIST_PARAMETER_ALIASES, LIST_PARAMETERS, listRequest, monthsBefore, normaliseDomain, normalisePhrase,
  parameterPath, parseDateRange, parseListParams, parseNumericRange, type ListEndpoint, type ListFilter,
} from '../../src/parse/list-params.js'
import { QueryParams } from '../../src/http/params.js'
import { numRuns } from '../support/num-runs.js'

const NOW = new Date('2026-06-15T12:00:00Z')

function parse(endpoint: ListEndpoint, query: string) {
  return parseListParams(endpoint, new QueryParams(new URLSearchParams(query)), { now: NOW })
}

function filterOf(endpoint: ListEndpoint, query: string): unknown {
  const r = parse(endpoint, query)
  if (!r.ok) throw new Error(`${query}: ${JSON.stringify(r.issues)}`)
  return r.value.filter
}

function issuesOf(endpoint: ListEndpoint, query: string) {
  const r = parse(endpoint, query)
  if (r.ok) throw new Error(`${query} was accepted: ${JSON.stringify(r.value)}`)
  return r.issues
}

describe('each format becomes the filter language', () => {
  test.each([
    ['companies', 'employees=50~200', { and: [{ employees: { between: [50, 200] } }] }],
    ['companies', 'employees=50~', { and: [{ employees: { gte: 50 } }] }],
    ['companies', 'employees=~200', { and: [{ employees: { lte: 200 } }] }],
    ['companies', 'employees=42', { and: [{ employees: { eq: 42 } }] }],
    ['companies', 'momentum_score=-5~5', { and: [{ momentum_score: { between: [-5, 5] } }] }],
    ['companies', 'momentum_score=-10.5~-2.25', { and: [{ momentum_score: { between: [-10.5, -2.25] } }] }],
    ['companies', 'employees=+5~+10', { and: [{ employees: { between: [5, 10] } }] }], // `+` arrives as a space
    ['companies', 'cached_uniques=1000~', { and: [{ website_uniques: { gte: 1000 } }] }],
    ['companies', 'cached_mobile_downloads=~10', { and: [{ mobile_downloads: { lte: 10 } }] }],
    ['companies', 'added_date=2020-01-01', { and: [{ added_date: { gte: '2020-01-01 00:00:00' } }] }], // a single date: from that date
    ['fundings', 'funding_date_range=20200101', { and: [{ rounds_funding_date: { gte: '2020-01-01' } }] }],
    ['companies', 'added_date=20200101~20201231', { and: [{ added_date: { between: ['2020-01-01 00:00:00', '2020-12-31 23:59:59'] } }] }],
    ['companies', 'added_date=2020-01-01~', { and: [{ added_date: { gte: '2020-01-01 00:00:00' } }] }],
    ['companies', 'added_date=~2020-01-01', { and: [{ added_date: { lte: '2020-01-01 23:59:59' } }] }],
    ['companies', 'stage=a|LATE|pre+series+a|exited (acquired)', { and: [{ stage: { in: ['a', 'Late', 'Pre Series A', 'Exited'] } }] }],
    ['companies', 'location=London&location=Paris', { and: [{ location: { in: ['London', 'Paris'] } }] }],
    ['companies', 'country[]=usa&country[]=GBR', { and: [{ country: { in: ['USA', 'GBR'] } }] }],
    ['companies', 'industries=Fintech%7CHealth', { and: [{ industries: { has_any: ['Fintech', 'Health'] } }] }],
    ['companies', 'play_category=Games', { and: [{ play_categories: { has_any: ['Games'] } }] }],
    ['companies', 'ios_store_category=Games', { and: [{ ios_store_categories: { has_any: ['Games'] } }] }],
    ['companies', 'has_mobile=1&has_ios_store=0', { and: [{ has_mobile: true }, { has_ios_store: false }] }],
    ['companies', 'investors=acme-ventures', { and: [{ foreign: { dataset: 'investors', filter: { svc_slug: { in: ['acme-ventures'] } } } }] }],
    ['companies', 'domain=https://WWW.Example.com/about', { and: [{ website: { in: ['example.com', 'www.example.com', 'Example.com', 'www.Example.com'] } }] }],
    ['companies', 'domain=example.com', { and: [{ website: { in: ['example.com', 'www.example.com'] } }] }],
    ['companies', 'company_name=lab', { and: [{ name: { contains: 'lab' } }] }],
    ['companies', 'last_funding_date=never+raised', { and: [{ last_funding_date: { is_null: true } }] }],
    ['companies', 'last_funding_date=has ever raised', { and: [{ last_funding_date: { is_null: false } }] }],
    ['companies', 'last_funding_date=Raised+In++Past+Year', { and: [{ last_funding_date: { gte: '2025-06-15' } }] }],
    ['companies', 'last_funding_date=not in past 13 months', { and: [{ not: { last_funding_date: { gte: '2025-05-15' } } }] }],
    ['companies', 'est_founding_date=within 10 years', { and: [{ est_founding_date: { gte: '2016-06-15' } }] }],
    // Several phrases (issue 11, item 10): the windows OR together; a phrase twice, in any spelling, counts once.
    ['companies', 'est_founding_date=within 1 year|within+10+years|Within 1 Year', { and: [{ or: [{ est_founding_date: { gte: '2025-06-15' } }, { est_founding_date: { gte: '2016-06-15' } }] }] }],
    ['companies', 'est_founding_date=within 3 months&est_founding_date[]=within 2 years', { and: [{ or: [{ est_founding_date: { gte: '2026-03-15' } }, { est_founding_date: { gte: '2024-06-15' } }] }] }],
    ['companies', 'est_founding_date=within 3 months|', { and: [{ est_founding_date: { gte: '2026-03-15' } }] }],
    ['companies', '', {}],
    ['companies', 'unknown_parameter=whatever&key=abc', {}],
    ['fundings', 'series=A|seed|debt_financing', { and: [{ series: { in: ['a', 'seed', 'debt_financing'] } }] }],
    ['fundings', 'investor_ids=3|1', { and: [{ foreign: { dataset: 'investors', filter: { investor_id: { in: [3, 1] } } } }] }],
    ['fundings', 'investor_slugs=a-b|c-d', { and: [{ foreign: { dataset: 'investors', filter: { svc_slug: { in: ['a-b', 'c-d'] } } } }] }],
    ['fundings', 'funding_date_range=2020-01-01~2020-06-30', { and: [{ rounds_funding_date: { between: ['2020-01-01', '2020-06-30'] } }] }],
    ['fundings', 'rounds_funding_date=20200115', { and: [{ rounds_funding_date: { eq: '2020-01-15' } }] }],
    ['fundings', 'amount=1000000~', { and: [{ amount: { gte: 1000000 } }] }],
    ['fundings', 'city=San Francisco', { and: [{ city: { in: ['San Francisco'] } }] }],
  ] as const)('%s ?%s', (endpoint, query, expected) => {
    expect(filterOf(endpoint, query)).toEqual(expected)
  })

  test('conditions follow the table order and name their parameter', () => {
    const r = parse('companies', 'stage=a&employees=5~&country=USA')
    expect(r.ok && r.value.parameters).toEqual(['employees', 'stage', 'country'])
  })

  test('every filter the table builds is accepted by the engine\'s parser and checker', () => {
    const queries: Record<ListEndpoint, string> = {
      companies: [
        'domain=example.com', 'company_name=lab', 'added_date=2020-01-01~2021-01-01', 'svc_score=1.5~80', 'momentum_score=-5~5',
        'employees=1~', 'employees_month_ago=~100', 'employees_added_in_month=-3~3', 'employees_mom=-1.5~', 'cached_uniques=1~',
        'cached_uniques_week_ago=1~', 'uniques_wow=-2~2', 'cached_uniques_month_ago=1~', 'uniques_mom=-2.5~', 'cached_mobile_downloads=1~',
        'cached_mobile_downloads_week_ago=1~', 'mobile_downloads_wow=-1~', 'cached_mobile_downloads_month_ago=1~', 'mobile_downloads_mom=~1',
        'est_founding_date=within 5 years', 'stage=a|b', 'investors=x', 'total_funding=1~', 'last_funding_date=not in past 2 years',
        'last_funding_amount=~5', 'location=London', 'state=CA', 'country=USA', 'has_mobile=1', 'has_android_store=0', 'has_ios_store=1',
        'play_category=Games', 'ios_store_category=Games', 'business_models=B2B', 'industries=Fintech', 'keywords=ai', 'sort=-employees,name',
      ].join('&'),
      fundings: 'amount=1~&city=Paris&country=FRA&funding_date_range=2020-01-01~&investor_ids=1&investor_slugs=x&series=a&rounds_funding_date=2020-01-01&sort=-amount',
    }
    for (const endpoint of Object.keys(queries) as ListEndpoint[]) {
      const r = parse(endpoint, queries[endpoint])
      if (!r.ok) throw new Error(JSON.stringify(r.issues))
      // Every parameter of the table was exercised.
      expect(r.value.parameters).toEqual(LIST_PARAMETERS[endpoint].map((d) => d.name))
      const parsed = parseQuery(listRequest(r.value, 2, 10))
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
      const checked = checkQuery(parsed.value)
      expect(checked.ok ? [] : checked.issues).toEqual([])
    }
  })
})

describe('bad values are issues naming the parameter, the accepted forms and what was sent', () => {
  test.each([
    ['employees=5~x', '/employees', 'invalid_value'],
    ['employees=~', '/employees', 'invalid_value'],
    ['employees=1~2~3', '/employees', 'invalid_value'],
    ['employees=10~5', '/employees', 'invalid_range'],
    ['employees=1.5', '/employees', 'invalid_value'], // an integer field
    ['employees=99999999999999999999', '/employees', 'invalid_value'],
    ['employees=1e3', '/employees', 'invalid_value'],
    ['svc_score=abc', '/svc_score', 'invalid_value'],
    ['added_date=2020-02-30', '/added_date', 'invalid_value'],
    ['added_date=2021-01-01~2020-01-01', '/added_date', 'invalid_range'],
    ['added_date=yesterday', '/added_date', 'invalid_value'],
    ['stage=series-z', '/stage', 'unknown_enum_value'],
    ['stage=|', '/stage', 'empty_list'],
    ['country=United States', '/country', 'invalid_value'],
    ['has_mobile=yes', '/has_mobile', 'invalid_value'],
    ['has_mobile=2', '/has_mobile', 'invalid_value'],
    ['has_mobile=1&has_mobile=0', '/has_mobile', 'invalid_value'],
    ['est_founding_date=within 4 years', '/est_founding_date', 'invalid_value'],
    ['est_founding_date=constructor', '/est_founding_date', 'invalid_value'],
    ['last_funding_date=raised in past week', '/last_funding_date', 'invalid_value'],
    ['last_funding_date=2020-01-01', '/last_funding_date', 'invalid_value'],
    ['domain=not a domain', '/domain', 'invalid_value'],
    ['company_name=' + 'x'.repeat(501), '/company_name', 'limit_exceeded'],
    ['industries=' + 'x'.repeat(501), '/industries', 'limit_exceeded'],
    ['sort=employes', '/sort', 'not_sortable'],
    ['sort=industries', '/sort', 'not_sortable'],
    ['sort=name,-name', '/sort', 'invalid_sort'],
  ])('?%s', (query, path, code) => {
    const issues = issuesOf('companies', query)
    expect(issues).toHaveLength(1)
    const [i] = issues
    expect(i!.path).toBe(path)
    expect(i!.code).toBe(code)
    expect(i!.expected, 'names what is accepted').toBeTruthy()
    expect(i!.got, 'names what was sent').toBeTruthy()
    expect(i!.message).toContain(`\`${path.slice(1)}\``)
  })

  test('a parameter sent empty is absent; a non-empty malformed value is still an issue', () => {
    const empties = [...LIST_PARAMETERS.companies.map((d) => `${d.name}=`), 'stage=&stage=', 'industries[]=', 'domain=&company_name=', 'employees= ']
    for (const query of empties) expect(filterOf('companies', query), query).toEqual({})
    for (const query of [...LIST_PARAMETERS.fundings.map((d) => `${d.name}=`)]) expect(filterOf('fundings', query), query).toEqual({})
    expect(filterOf('companies', 'stage=&country=usa')).toEqual({ and: [{ country: { in: ['USA'] } }] })
    expect(issuesOf('companies', 'stage=&employees=x')[0]).toMatchObject({ path: '/employees', code: 'invalid_value' })
  })

  test('an unknown stage lists the allowed values and suggests the nearest', () => {
    const [i] = issuesOf('companies', 'stage=Pre Seris A')
    expect(i!.allowed).toEqual(['Unknown', 'No Known Funding', 'Pre Series A', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'Late', 'Exited'])
    expect(i!.suggestions).toContain('Pre Series A')
    expect(i!.message).toMatch(/Did you mean "Pre Series A"/)
  })

  test('an unknown phrase lists every accepted phrase and suggests the nearest', () => {
    const [i] = issuesOf('companies', 'last_funding_date=raised in past yaer')
    expect(i!.allowed).toEqual(Object.keys(FUNDING_PHRASES))
    expect(i!.suggestions?.[0]).toBe('raised in past year')
    const [f] = issuesOf('companies', 'est_founding_date=within 1 years')
    expect(f!.allowed).toEqual(Object.keys(FOUNDING_PHRASES))
    expect(f!.suggestions).toContain('within 1 year')
  })

  test('an unknown series lists the series values', () => {
    const [i] = issuesOf('fundings', 'series=series_a')
    expect(i!.code).toBe('unknown_enum_value')
    expect(i!.allowed).toContain('debt_financing')
  })

  test('investor_ids must be positive whole numbers', () => {
    for (const bad of ['x', '0', '-1', '1.5', '1;drop table investors']) {
      const [i] = issuesOf('fundings', `investor_ids=${encodeURIComponent(bad)}`)
      expect(i!.path).toBe('/investor_ids')
    }
  })

  test('rounds_funding_date takes one date, not a range', () => {
    expect(issuesOf('fundings', 'rounds_funding_date=2020-01-01~2020-02-01')[0]!.path).toBe('/rounds_funding_date')
  })

  test('every bad parameter is reported at once', () => {
    const issues = issuesOf('companies', 'employees=x&stage=zz&has_mobile=maybe&sort=nope')
    expect(issues.map((i) => i.path).sort()).toEqual(['/employees', '/has_mobile', '/sort', '/stage'])
  })
})

describe('date phrases against the clock (UTC month arithmetic)', () => {
  test.each([
    ['2026-06-15T12:00:00Z', 3, '2026-03-15'],
    ['2026-06-15T23:59:59Z', 12, '2025-06-15'],
    ['2024-05-31T00:00:00Z', 3, '2024-02-29'], // clamped to the last day of a leap February
    ['2023-05-31T00:00:00Z', 3, '2023-02-28'],
    ['2026-03-31T10:00:00Z', 1, '2026-02-28'],
    ['2026-01-10T00:00:00Z', 13, '2024-12-10'], // across a year boundary
    ['2026-02-28T00:00:00Z', 120, '2016-02-28'],
    ['2026-06-15T00:30:00+02:00', 3, '2026-03-14'], // the UTC day, not the local one
  ])('%s minus %i months is %s', (now, months, expected) => {
    expect(monthsBefore(new Date(now), months)).toBe(expected)
  })

  test('phrases are read case-insensitively with any spacing or +', () => {
    expect(normalisePhrase('  Not+in++PAST   2 years ')).toBe('not in past 2 years')
  })

  test('every phrase of spec 4.1 is accepted', () => {
    for (const phrase of Object.keys(FUNDING_PHRASES)) expect(parse('companies', `last_funding_date=${encodeURIComponent(phrase)}`).ok).toBe(true)
    for (const phrase of Object.keys(FOUNDING_PHRASES)) expect(parse('companies', `est_founding_date=${encodeURIComponent(phrase)}`).ok).toBe(true)
    expect(Object.keys(FUNDING_PHRASES)).toHaveLength(15)
    expect(Object.keys(FOUNDING_PHRASES)).toHaveLength(8)
  })
})

describe('domains', () => {
  test.each([
    ['Example.COM', 'example.com'],
    ['www.example.com', 'example.com'],
    ['http://www.example.com:8080/path?q=1', 'example.com'],
    ['example.com.', 'example.com'],
    ['sub.example.co.uk', 'sub.example.co.uk'],
    ['MÜNCHEN.de', 'münchen.de'],
    ['HTTPS://www.x-y.io', 'x-y.io'],
  ])('%s → %s', (input, expected) => expect(normaliseDomain(input)).toBe(expected))

  test.each(['', 'www.', 'exa mple.com', 'localhost', "example.com' or 1=1 --", 'a..b', `${'a'.repeat(254)}`])('%j is not a domain', (input) => {
    expect(normaliseDomain(input)).toBeUndefined()
  })
})

describe('sort', () => {
  test('-field is descending, parameter names stand for their field, clauses keep their order', () => {
    const r = parse('companies', 'sort=-cached_uniques,name')
    expect(r.ok && r.value.sort).toEqual([{ website_uniques: 'desc' }, { name: 'asc' }])
  })

  test('absent: no sort, so the engine applies the dataset default', () => {
    const r = parse('fundings', '')
    expect(r.ok && r.value.sort).toBeUndefined()
  })
})

describe('engine issue paths become parameter paths', () => {
  const parsed: ListFilter = { dataset: 'companies', filter: {}, parameters: ['employees', 'stage'] }
  test.each([
    ['/filter/and/1/stage/in', '/stage'],
    ['/filter/and/0', '/employees'],
    ['/sort/0/name', '/sort'],
    ['/per_page', '/per_page'],
    ['/filter/and/7/x', ''],
  ])('%s → %s', (from, to) => expect(parameterPath(parsed, from)).toBe(to))
})

describe('properties', () => {
  const decimal = fc.tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: 0, max: 99 }))
    .map(([whole, cents]) => `${whole < 0 ? '-' : ''}${Math.abs(whole)}.${String(cents).padStart(2, '0')}`)
    .map((text) => ({ text, value: Number(text) === 0 ? 0 : Number(text) }))
  const integer = fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map((n) => ({ text: String(n), value: n === 0 ? 0 : n }))

  test('valid numeric range text round-trips to the right operator and operands', () => {
    for (const [kind, bound] of [['integer', integer], ['number', decimal]] as const) {
      fc.assert(fc.property(fc.option(bound), fc.option(bound), fc.constantFrom('', ' '), (lo, hi, pad) => {
        if (lo === null && hi === null) return
        if (lo !== null && hi !== null && lo.value > hi.value) [lo, hi] = [hi, lo]
        const text = lo !== null && hi !== null && lo === hi ? lo.text
          : `${lo ? pad + lo.text : ''}${pad}~${pad}${hi ? hi.text + pad : ''}`
        const r = parseNumericRange(text, kind)
        if (!r.ok) throw new Error(`${text}: ${r.reason}`)
        const expected = lo !== null && hi !== null && lo === hi ? { op: 'eq', value: lo.value }
          : lo !== null && hi !== null ? { op: 'between', value: [lo.value, hi.value] }
          : lo !== null ? { op: 'gte', value: lo.value } : { op: 'lte', value: hi!.value }
        expect(r.value).toEqual(expected)
      }), { numRuns: numRuns(300) })
    }
  })

  test('valid date range text round-trips, in both date forms', () => {
    const day = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10))
    fc.assert(fc.property(day, day, fc.boolean(), (a, b, compact) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a]
      const show = (d: string) => (compact ? d.replace(/-/g, '') : d)
      const r = parseDateRange(`${show(lo)}~${show(hi)}`)
      expect(r.ok && r.value).toEqual({ op: 'between', value: [lo, hi] })
    }), { numRuns: numRuns(200) })
  })

  test('junk never throws: every parameter of both endpoints, any text', () => {
    const names = [...new Set([...LIST_PARAMETERS.companies, ...LIST_PARAMETERS.fundings].map((d) => d.name)), 'sort', 'page', 'per_page', 'constructor', '__proto__']
    const junk = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('~', '~~', '-', '-~-', '1e309~', 'NaN', 'Infinity', '\u0000', '%E0%A4%A', '|||', '0x10', ' '))
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...names), junk), { maxLength: 6 }), fc.constantFrom<ListEndpoint>('companies', 'fundings'), (pairs, endpoint) => {
      const search = new URLSearchParams()
      for (const [k, v] of pairs) search.append(k, v)
      const r = parseListParams(endpoint, new QueryParams(search), { now: NOW })
      if (r.ok) {
        // Whatever was accepted is a request the engine's parser takes.
        expect(parseQuery(listRequest(r.value, 1, 10)).ok).toBe(true)
      } else {
        for (const i of r.issues) expect(i.path).toMatch(/^\/[a-z_]+$/)
      }
    }), { numRuns: numRuns(300) })
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
      parseNumericRange(text, 'integer')
      parseNumericRange(text, 'number')
      parseDateRange(text)
      normaliseDomain(text)
    }), { numRuns: numRuns(300) })
  })
})

test('grammar-docs/list-parameters.md documents every parameter and format', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'grammar-docs', 'list-parameters.md'), 'utf8')
  for (const endpoint of Object.keys(LIST_PARAMETERS) as ListEndpoint[]) {
    for (const def of LIST_PARAMETERS[endpoint]) expect(doc, `${endpoint} ${def.name}`).toContain(`| \`${def.name}\` |`)
  }
  for (const format of Object.keys(FORMATS)) expect(doc, format).toContain(`\`${format}\``)
  for (const phrase of [...Object.keys(FUNDING_PHRASES), ...Object.keys(FOUNDING_PHRASES)]) expect(doc, phrase).toContain(phrase)
  // The page's worked example is what the parser produces.
  const example = /```json\n(\{\n  "dataset": "companies"[\s\S]*?)\n```/.exec(doc)
  expect(example).not.toBeNull()
  const r = parse('companies', 'stage=a|b&employees=50~200&industries=Fintech&last_funding_date=raised+in+past+year')
  if (!r.ok) throw new Error('example refused')
  expect(JSON.parse(example![1]!)).toEqual(listRequest(r.value, 1, 10))
})

describe('the original service\'s parameter names (LIST_PARAMETER_ALIASES)', () => {
  test.each([
    ['mattermark_score=10~50', 'svc_score=10~50'],
    ['has_google_play=1', 'has_android_store=1'],
    ['has_itunes=0', 'has_ios_store=0'],
    ['itunes_category=Games|Music', 'ios_store_category=Games|Music'],
  ])('?%s reads as ?%s', (alias, spec) => {
    expect(filterOf('companies', alias)).toEqual(filterOf('companies', spec))
    expect(filterOf('companies', alias)).not.toEqual({})
    // both spellings with the same values: one condition
    expect(filterOf('companies', `${alias}&${spec}`)).toEqual(filterOf('companies', spec))
  })

  test('every alias names a parameter of its endpoint, and no alias is a parameter itself', () => {
    for (const endpoint of ['companies', 'fundings'] as const) {
      const names = LIST_PARAMETERS[endpoint].map((d) => d.name)
      for (const { alias, name } of LIST_PARAMETER_ALIASES[endpoint]) {
        expect(names).toContain(name)
        expect(names).not.toContain(alias)
      }
    }
  })

  test('an alias and its spec name with different values is one issue naming both', () => {
    const issues = issuesOf('companies', 'has_itunes=1&has_ios_store=0')
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ code: 'invalid_value', path: '/has_ios_store' })
    expect(issues[0]!.message).toContain('`has_ios_store`')
    expect(issues[0]!.message).toContain('`has_itunes`')
    expect(issuesOf('companies', 'itunes_category=Games&ios_store_category=Music')[0]!.message).toContain('`itunes_category`')
    // reported together with the other parameters' issues
    expect(issuesOf('companies', 'has_itunes=1&has_ios_store=0&employees=x').map((i) => i.path)).toEqual(['/has_ios_store', '/employees'])
  })

  test('a bad value sent under an alias is reported under the alias', () => {
    const [i] = issuesOf('companies', 'mattermark_score=high')
    expect(i).toMatchObject({ path: '/mattermark_score', code: 'invalid_value' })
    expect(i!.message).toContain('`mattermark_score` (read as `svc_score`)')
  })
})
