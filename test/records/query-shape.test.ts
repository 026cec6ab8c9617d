/**
 * Query shapes (src/records/query-shape.ts), the statements of the record lookups: compiled once
 * per dialect with stand-ins for their values, then bound by name. Pins the SQL of the dialect hooks
 * the lookups use on both backends, that values only ever travel as parameters, and that a shape
 * that would compile into something other than its parameters fails loudly.
 */
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { nullsLast } from '../../src/records/order.js'
import { queryBatch, queryShape } from '../../src/records/query-shape.js'

const STORIES = queryShape<{ companyId: number; limit: number }, unknown>('test: stories', (db, d, p) =>
  db.selectFrom('company_stories').select(['id', 'title']).where('company_id', '=', p.companyId)
    .orderBy(d.binaryText(sql.ref('published_at')), nullsLast(d, 'desc')).orderBy('id', 'desc').limit(p.limit))

const NAMES = queryShape<{ ids: string }, unknown>('test: names', (db, d, p) =>
  db.selectFrom('funding_investors as fi').innerJoin('investors as i', 'i.id', 'fi.investor_id')
    .select(['fi.funding_id', d.stringAgg(sql.ref('i.name'), ', ', sql.ref('i.id')).as('names')])
    .where(d.inList(sql.ref('fi.funding_id'), p.ids, 'integer')).groupBy('fi.funding_id'))

describe('queryShape', () => {
  it('compiles per dialect and binds the values by name, in the order the SQL uses them', () => {
    expect(STORIES.bind('sqlite', { companyId: 7, limit: 50 })).toEqual({
      sql: 'select "id", "title" from "company_stories" where "company_id" = ? order by "published_at" desc, "id" desc limit ?',
      parameters: [7, 50],
    })
    // PostgreSQL puts NULLs first in a descending order, and compares the detail tables' text by
    // the database's collation: both are written out.
    expect(STORIES.bind('postgres', { limit: 20, companyId: 8 })).toEqual({
      sql: 'select "id", "title" from "company_stories" where "company_id" = $1 order by "published_at" collate "C" desc nulls last, "id" desc limit $2',
      parameters: [8, 20],
    })
  })

  it('writes string aggregation and JSON lists with each dialect\'s functions, the separator and the list as parameters', () => {
    expect(NAMES.bind('sqlite', { ids: '[1,2]' })).toEqual({
      sql: 'select "fi"."funding_id", group_concat("i"."name", ? order by "i"."id") as "names" from "funding_investors" as "fi" inner join "investors" as "i" on "i"."id" = "fi"."investor_id" where "fi"."funding_id" in (select value from json_each(?)) group by "fi"."funding_id"',
      parameters: [', ', '[1,2]'],
    })
    expect(NAMES.bind('postgres', { ids: '[1,2]' })).toEqual({
      sql: 'select "fi"."funding_id", string_agg("i"."name", $1 order by "i"."id") as "names" from "funding_investors" as "fi" inner join "investors" as "i" on "i"."id" = "fi"."investor_id" where "fi"."funding_id" = any(array(select jsonb_array_elements_text($2::jsonb)::bigint)) group by "fi"."funding_id"',
      parameters: [', ', '[1,2]'],
    })
  })

  it('makes a batch one PostgreSQL statement, each part\'s rows a JSON column, parameters numbered through', () => {
    const batch = queryBatch('test: batch', {
      stories: { shape: STORIES, params: (p: { id: number }) => ({ companyId: p.id, limit: 50 }) },
      names: { shape: NAMES, params: (p: { ids: string }) => ({ ids: p.ids }) },
    })
    expect(batch.combined.bind('postgres', { id: 8, ids: '[1]' })).toEqual({
      sql: 'select (select coalesce(json_agg(r), \'[]\'::json) from (select "id", "title" from "company_stories" where "company_id" = $1 order by "published_at" collate "C" desc nulls last, "id" desc limit $2) as r) as "stories", ' +
        '(select coalesce(json_agg(r), \'[]\'::json) from (select "fi"."funding_id", string_agg("i"."name", $3 order by "i"."id") as "names" from "funding_investors" as "fi" inner join "investors" as "i" on "i"."id" = "fi"."investor_id" where "fi"."funding_id" = any(array(select jsonb_array_elements_text($4::jsonb)::bigint)) group by "fi"."funding_id") as r) as "names"',
      parameters: [8, 50, ', ', '[1]'],
    })
    // SQLite runs the parts one by one (its statements are function calls): no combined form.
    expect(() => batch.combined.bind('sqlite', { id: 8, ids: '[1]' })).toThrow(/no jsonRows/)
  })

  it('keeps hostile values out of the SQL text', () => {
    const CONTACT = queryShape<{ companyId: number; name: string }, unknown>('test: contact', (db, _d, p) =>
      db.selectFrom('company_contacts').select('email').where('company_id', '=', p.companyId).where('name', '=', p.name))
    for (const hostile of ["x' or '1'='1", "'; drop table companies; --", '"; delete from investors; --', '\\', '*/ select 1 /*']) {
      for (const dialect of ['sqlite', 'postgres'] as const) {
        const bound = CONTACT.bind(dialect, { companyId: 1, name: hostile })
        expect(bound.sql).not.toContain(hostile)
        expect(bound.parameters).toEqual([1, hostile])
      }
    }
  })

  it('fails loudly when a value is used as JavaScript instead of passed to Kysely', () => {
    const misused = queryShape<{ id: number }, unknown>('test: misused', (db, _d, p) =>
      db.selectFrom('companies').select('id').where('id', '=', (p.id as number) + 1))
    expect(() => misused.bind('sqlite', { id: 1 })).toThrow(/"id" of a query shape was used as a JavaScript value/)
    const stringified = queryShape<{ ids: number[] }, unknown>('test: stringified', (db, d, p) =>
      db.selectFrom('companies').select('id').where(d.inList(sql.ref('id'), JSON.stringify(p.ids), 'integer')))
    expect(() => stringified.bind('postgres', { ids: [1] })).toThrow(/"ids" of a query shape was used as a JavaScript value/)
  })

  it('fails loudly on a parameter read but never bound, and on a value missing at call time', () => {
    const unbound = queryShape<{ id: number; other: number }, unknown>('test: unbound', (db, _d, p) => {
      void p.other
      return db.selectFrom('companies').select('id').where('id', '=', p.id)
    })
    expect(() => unbound.bind('sqlite', { id: 1, other: 2 })).toThrow(/reads "other" but never binds it/)
    expect(() => STORIES.bind('sqlite', { companyId: 1 } as never)).toThrow(/needs the parameter "limit"/)
  })
})
