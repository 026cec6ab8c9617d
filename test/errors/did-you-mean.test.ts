import { describe, expect, test } from 'vitest'
import { didYouMean, suggestionList } from '../../src/errors/did-you-mean.js'

describe('suggestionList', () => {
  test('typos, transpositions and case, best first', () => {
    expect(suggestionList('portfolio_sise', ['portfolio_size', 'number_of_deals', 'name'])).toEqual(['portfolio_size'])
    expect(suggestionList('naem', ['name', 'zip', 'state'])).toEqual(['name'])
    expect(suggestionList('gtee', ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'])).toEqual(['gte', 'gt', 'lte'])
  })

  test('a case-only difference is suggested alone', () => {
    expect(suggestionList('IN', ['in', 'nin', 'is_null'])).toEqual(['in'])
    expect(suggestionList('Stage', ['stage', 'state'])).toEqual(['stage'])
  })

  test('contained names for inputs of 3+ characters', () => {
    expect(suggestionList('funding', ['total_funding', 'last_funding_date', 'name'])).toEqual(['last_funding_date', 'total_funding'])
    expect(suggestionList('id', ['investor_id', 'name'])).toEqual([])
  })

  test('at most five, nothing for unrelated names', () => {
    expect(suggestionList('a', ['b', 'c', 'd', 'e', 'f', 'g', 'h'])).toHaveLength(5)
    expect(suggestionList('xyzzy', ['name', 'employees'])).toEqual([])
  })
})

describe('didYouMean', () => {
  test('phrases one, two and several suggestions', () => {
    expect(didYouMean([])).toBe('')
    expect(didYouMean(['a'])).toBe(' Did you mean "a"?')
    expect(didYouMean(['a', 'b'])).toBe(' Did you mean "a" or "b"?')
    expect(didYouMean(['a', 'b', 'c'])).toBe(' Did you mean "a", "b" or "c"?')
  })
})
