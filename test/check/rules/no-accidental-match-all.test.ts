import { describe, expect, test } from 'vitest'
import { build } from '../../../src/ast/index.js'
import { checkFilter } from '../../../src/check/index.js'

const issuesOf = (node: Parameters<typeof checkFilter>[0]) => {
  const r = checkFilter(node, 'companies')
  return r.ok ? [] : r.issues.map((i) => [i.code, i.path, i.message])
}

// The JSON parser refuses these shapes itself (see test/parse/issues.test.ts); these trees come
// from other front-ends through the factory.
describe('no-accidental-match-all', () => {
  test('empty and/or', () => {
    expect(issuesOf(build.and([], '/filter/and'))).toEqual([
      ['empty_list', '/filter/and', '`and` needs at least one filter; an empty list would silently match everything.'],
    ])
    expect(issuesOf(build.or([], '/filter/or'))).toEqual([
      ['empty_list', '/filter/or', '`or` needs at least one filter; an empty list would silently match nothing.'],
    ])
  })

  test('MatchAll below the top level', () => {
    expect(issuesOf(build.not(build.matchAll('/filter/not'), '/filter/not'))).toEqual([
      ['empty_filter', '/filter/not', 'An empty filter hash {} means "every record" only as the whole filter; here it would match everything by accident.'],
    ])
    expect(issuesOf(build.matchAll())).toEqual([])
  })

  test('empty lists, null in lists, empty text', () => {
    expect(issuesOf(build.condition('name', 'in', [], '/filter/name/in'))).toEqual([
      ['empty_list', '/filter/name/in', 'Operator "in" on field "name" needs at least one value; an empty list would silently match nothing.'],
    ])
    expect(issuesOf(build.condition('name', 'nin', ['a', null], '/filter/name/nin'))).toEqual([
      ['invalid_value', '/filter/name/nin/1', 'Lists cannot contain null (item 1 of "nin" on field "name"); use {"is_null": true} to match missing values.'],
    ])
    expect(issuesOf(build.condition('name', 'contains', '', '/filter/name/contains'))).toEqual([
      ['invalid_value', '/filter/name/contains', 'Operator "contains" on field "name" needs a non-empty text; an empty one would match every value.'],
    ])
  })
})
