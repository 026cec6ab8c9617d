/**
 * `fields` over HTTP: the listings, POST /queries, GET /queries/:query_id, the detail answers,
 * the company sub-resources and an investor's portfolio return the id and the picked members only,
 * with the values the full answer has; the query id does not depend on them; unknown names are a
 * 400 with did-you-mean, on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { problemSchema } from '../../src/http/schemas/common.js'
import { createHarness, type Harness } from './harness.js'

let h: Harness
const internalErrors: unknown[] = []
beforeAll(async () => { h = await createHarness({ app: { onInternalError: (e) => { internalErrors.push(e) } } }) })
afterAll(async () => {
  await h.close()
  expect(internalErrors).toEqual([])
})

const pick = (item: Record<string, unknown>, names: readonly string[]) => Object.fromEntries(names.map((n) => [n, item[n]]))
const postJson = (body: unknown) => h.request('/queries', { init: { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } })

async function problem(res: Response, status = 400) {
  const text = await res.text()
  expect(res.status, text).toBe(status)
  return problemSchema.parse(JSON.parse(text)) as any
}

describe('fields on the listings', () => {
  it('GET /companies shows the item\'s members and the picked catalog fields', async () => {
    const full = await h.json('/companies?employees=5&per_page=20&sort=-employees')
    const picked = await h.json('/companies?employees=5&per_page=20&sort=-employees&fields=company_name,domain,stage')
    expect(full.companies.length).toBeGreaterThan(5)
    expect(picked.meta).toEqual(full.meta)
    picked.companies.forEach((item: Record<string, unknown>, i: number) => {
      expect(Object.keys(item)).toEqual(['id', 'url', 'company_name', 'domain', 'stage'])
      expect(pick(item, ['id', 'url', 'company_name', 'domain'])).toEqual(full.companies[i])
      const stage = h.vdb.sqlite.prepare('select stage from companies where id = ?').pluck().get(Number(item.id))
      expect(item.stage).toBe(stage ?? 'Unknown')
    })
  })

  it('GET /fundings picks members of the funding event, extras included', async () => {
    const full = await h.json('/fundings?per_page=30')
    for (const names of [['series', 'investors', 'amount'], ['funding_id', 'company_name']]) {
      const picked = await h.json(`/fundings?per_page=30&fields=${names.join(',')}`)
      expect(picked.fundings).toEqual(full.fundings.map((f: Record<string, unknown>) => pick(f, ['id', ...names])))
    }
    expect(full.fundings.some((f: { investors: string }) => f.investors !== '')).toBe(true)
  })

  it('refuses an unknown name with did-you-mean, and an empty list', async () => {
    const body = await problem(await h.get('/companies?fields=company_name,stag'))
    expect(body.issues.map((i: any) => [i.code, i.path])).toEqual([['unknown_field', '/fields']])
    expect(body.issues[0].suggestions).toContain('stage')
    const fundings = await problem(await h.get('/fundings?fields=investor'))
    expect(fundings.issues[0].suggestions).toContain('investors')
    expect((await problem(await h.get('/companies?fields=,'))).issues[0].code).toBe('invalid_value')
  })
})

describe('fields on stored queries', () => {
  const query = { dataset: 'companies', filter: { employees: { gte: 5 } }, sort: [{ employees: 'desc' }], per_page: 20 }

  it('POST /queries: the same query id and records, narrowed', async () => {
    const full = await (await postJson(query)).json() as any
    const res = await postJson({ ...query, fields: ['name', 'industries'] })
    expect(res.status).toBe(200)
    const picked = await res.json() as any
    expect(picked.query_id).toBe(full.query_id)
    expect(picked.results).toEqual(full.results.map((r: Record<string, unknown>) => pick(r, ['id', 'name', 'industries'])))
    // A form body sends the names comma-separated.
    const form = new URLSearchParams({ dataset: 'companies', filter: JSON.stringify(query.filter), sort: JSON.stringify(query.sort), per_page: '20', fields: 'name,industries' })
    const viaForm = await (await h.request('/queries', { init: { method: 'POST', body: form } })).json() as any
    expect(viaForm.results).toEqual(picked.results)
  })

  it('GET /queries/:id?fields= picks per page; fundings views show their extras when asked', async () => {
    const full = await (await postJson(query)).json() as any
    const page = await h.json(`/queries/${full.query_id}?per_page=20&fields=stage,country`)
    expect(page.results).toEqual(full.results.map((r: Record<string, unknown>) => pick(r, ['id', 'stage', 'country'])))
    const fundings = await (await postJson({ dataset: 'fundings', per_page: 10 })).json() as any
    const narrowed = await h.json(`/queries/${fundings.query_id}?per_page=10&fields=funding_id,investors`)
    expect(narrowed.results).toEqual(fundings.results.map((r: Record<string, unknown>) => pick(r, ['id', 'funding_id', 'investors'])))
  })

  it('refuses names the dataset lacks, in the body and the URL', async () => {
    const body = await problem(await postJson({ ...query, fields: ['name', 'funding_id'] }))
    expect(body.issues.map((i: any) => [i.code, i.path])).toEqual([['unknown_field', '/fields/1']])
    const { query_id } = await (await postJson(query)).json() as any
    const viewOnly = await problem(await h.get(`/queries/${query_id}?fields=funding_id`))
    expect(viewOnly.issues[0].code).toBe('unknown_field')
    const typo = await problem(await h.get(`/queries/${query_id}?fields=emplyees`))
    expect(typo.issues[0].suggestions).toContain('employees')
  })
})

describe('fields on the detail answers', () => {
  it('GET /companies/:id, GET /domains/:domain/companies and GET /investors/:id pick top-level members', async () => {
    const { id, website } = h.vdb.sqlite.prepare("select id, website from companies where website is not null and website <> '' order by id limit 1").get() as { id: number; website: string }
    const full = await h.json(`/companies/${id}`)
    const picked = await h.json(`/companies/${id}?fields=name,employees,name`)
    expect(picked).toEqual(pick(full, ['id', 'name', 'employees']))
    expect(Object.keys(picked)).toEqual(['id', 'name', 'employees'])
    expect(await h.json(`/domains/${encodeURIComponent(website)}/companies?fields=website`)).toEqual(pick(full, ['id', 'website']))
    const investorId = h.vdb.sqlite.prepare('select id from investors order by id limit 1').pluck().get() as number
    const investor = await h.json(`/investors/${investorId}`)
    expect(await h.json(`/investors/${investorId}?fields=portfolio_size,name`)).toEqual(pick(investor, ['id', 'portfolio_size', 'name']))
    const typo = await problem(await h.get(`/companies/${id}?fields=employes`))
    expect(typo.issues[0].suggestions).toContain('employees')
    expect((await problem(await h.get(`/investors/${investorId}?fields=nmae`))).issues[0].suggestions).toContain('name')
  })
})

describe('fields on the record sub-resources', () => {
  const idWith = (table: string) => h.vdb.sqlite.prepare(`select company_id from ${table} group by company_id order by count(*) desc, company_id limit 1`).pluck().get() as number

  it('stories, similar, people and tech_stack pick members of each item, the id always', async () => {
    const cases: Array<[string, string, readonly string[]]> = [
      [`/companies/${idWith('company_stories')}/stories`, 'title,published_at', ['id', 'title', 'published_at']],
      [`/companies/${idWith('company_stories')}/similar`, 'probability,company_name', ['id', 'probability', 'company_name']],
      [`/companies/${idWith('company_people')}/people`, 'title,name', ['title', 'name']],
      [`/companies/${idWith('company_tech_stack')}/tech_stack`, 'title', ['company_id', 'title']],
    ]
    for (const [path, fields, members] of cases) {
      const full = await h.json(path) as Record<string, unknown>[]
      expect(full.length, path).toBeGreaterThan(1)
      const picked = await h.json(`${path}?fields=${fields}`) as Record<string, unknown>[]
      expect(picked, path).toEqual(full.map((item) => pick(item, members)))
      picked.forEach((item) => expect(Object.keys(item), path).toEqual(members))
    }
  })

  it('GET /investors/:id/portfolio picks members of each company, the meta unchanged', async () => {
    const investorId = h.vdb.sqlite.prepare('select id from investors order by portfolio_size desc, id limit 1').pluck().get() as number
    const full = await h.json(`/investors/${investorId}/portfolio?per_page=5&page=2`)
    expect(full.companies.length).toBeGreaterThan(1)
    const picked = await h.json(`/investors/${investorId}/portfolio?per_page=5&page=2&fields=stage,company_name,stage`)
    expect(picked).toEqual({ companies: full.companies.map((c: Record<string, unknown>) => pick(c, ['id', 'stage', 'company_name'])), meta: full.meta })
    expect(Object.keys(picked.companies[0])).toEqual(['id', 'stage', 'company_name'])
  })

  it('refuses an unknown name with did-you-mean, before looking the company or investor up', async () => {
    const id = idWith('company_stories')
    const stories = await problem(await h.get(`/companies/${id}/stories?fields=titel`))
    expect(stories.issues.map((i: any) => [i.code, i.path])).toEqual([['unknown_field', '/fields']])
    expect(stories.issues[0].suggestions).toContain('title')
    expect(stories.issues[0].allowed).toEqual(['id', 'title', 'url', 'published_at', 'source_title'])
    expect((await problem(await h.get(`/companies/${id}/people?fields=nam`))).issues[0].suggestions).toContain('name')
    expect((await problem(await h.get(`/companies/${id}/similar?fields=probabilty`))).issues[0].suggestions).toContain('probability')
    expect((await problem(await h.get(`/companies/${id}/tech_stack?fields=tittle`))).issues[0].suggestions).toContain('title')
    const portfolio = await problem(await h.get('/investors/1/portfolio?fields=company_nme,stage'))
    expect(portfolio.issues[0].suggestions).toContain('company_name')
    expect((await problem(await h.get(`/companies/${id}/stories?fields=,`))).issues[0].code).toBe('invalid_value')
  })
})
