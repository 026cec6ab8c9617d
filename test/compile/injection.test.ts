/**
 * Hostile values never reach the SQL text: quotes, statement terminators, comment markers, LIKE
 * wildcards and backslashes travel only as bound parameters, on both dialects, in every operator
 * that takes a value (scalar, list, text, tags, foreign, keyset boundary).
 */
import { describe, expect, it } from 'vitest'
import { and, condition as c, foreign } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import { checked, keysSql } from './helpers.js'

const HOSTILE = [
  "x' or '1'='1",
  "'; drop table companies; --",
  '"; delete from investors; --',
  '%',
  '_',
  '\\',
  "\\'",
  '*/ select 1 /*',
  'Robert\'); DROP TABLE Students;--',
]

const p = '/filter'
function filters(v: string): FilterNode[] {
  return [
    c('name', 'eq', v, p),
    c('name', 'gt', v, p),
    c('name', 'between', [v, v + 'z'], p),
    c('name', 'in', [v, 'other'], p),
    c('name', 'contains', v, p),
    c('name', 'starts_with', v, p),
    c('name', 'ends_with', v, p),
    c('industries', 'has_any', [v], p),
    c('industries', 'has_all', [v, 'b'], p),
    foreign('investors', and([c('name', 'eq', v, p), c('industries', 'has_any', [v, 'x'], p)], p), 'all', p),
  ]
}

describe('injection', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    for (const v of HOSTILE) {
      it(`${dialect}: ${JSON.stringify(v)} stays a parameter`, () => {
        for (const f of filters(v)) {
          const { sql, parameters } = keysSql(dialect, checked('companies', f, [['name', 'asc']]), [v, 1])
          // The only quote characters in the SQL are those of identifiers, the LIKE escape clause
          // and PostgreSQL's translate() alphabets; none comes from the value.
          const stripped = sql
            .replace(/"[a-z0-9_]+"/g, '')
            .replace(/escape '\\'/g, '')
            .replace(/'ABCDEFGHIJKLMNOPQRSTUVWXYZ'|'abcdefghijklmnopqrstuvwxyz'/g, '')
          expect(stripped).not.toMatch(/['";%\\]|--|\/\*/)
          if (v.length > 2) expect(sql).not.toContain(v)
          // The value is really there, as data: verbatim, or inside a JSON list or LIKE pattern.
          expect(parameters.some((x) => typeof x === 'string' && (x === v || x.includes(JSON.stringify(v)) || x.length >= v.length))).toBe(true)
        }
        const eq = keysSql(dialect, checked('companies', c('name', 'eq', v, p)))
        expect(eq.parameters[0]).toBe(v)
      })
    }
  }

  it('escapes LIKE metacharacters so they match literally', () => {
    const { parameters } = keysSql('sqlite', checked('companies', c('name', 'contains', '100%_\\', p)))
    expect(parameters[0]).toBe('%100\\%\\_\\\\%')
  })
})
