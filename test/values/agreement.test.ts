/**
 * @module A value means the same in a filter and in an imported record: every input of the table
 * goes through the filter path (parseQuery + checkQuery, `eq` on a field of the type) and through
 * the record path (parseRecord, the same field on a company record), and the two must agree:
 * both accept it and store the same value, or both reject it. The expected stored value is pinned
 * too, so the table documents grammar-docs/language.md, "Values".
 */
import { describe, expect, test } from 'vitest'
import { datasets, type FieldDef, type FieldTypeKind } from '../../src/catalog/index.js'
import type { ConditionNode } from '../../src/ast/nodes.js'
import { checkQuery } from '../../src/check/index.js'
import { bindable } from '../../src/compile/values.js'
import { parseQuery } from '../../src/parse/index.js'
import { parseRecord } from '../../src/store/record-schemas.js'

const companies = datasets.companies

/** The first plain company field of a kind (names come from the catalog, not from this test). */
function fieldOf(kind: FieldTypeKind, enumWithAliases = false): FieldDef {
  const found = Object.values(companies.fields).find((f) =>
    f.role === 'property' && f.type.kind === kind && f.name !== companies.primaryKey
    && (!enumWithAliases || (f.type.kind === 'enum' && Object.keys(f.type.aliases ?? {}).length > 0)))
  if (!found) throw new Error(`no company field of kind ${kind}`)
  return found
}

type Outcome = { accepted: true; stored: unknown } | { accepted: false }

/** The filter path: the value as stored for comparison (what compile binds), or rejected. */
function throughFilter(field: FieldDef, value: unknown): Outcome {
  const parsed = parseQuery({ dataset: companies.name, filter: { [field.name]: { eq: value } } })
  if (!parsed.ok) return { accepted: false }
  const checked = checkQuery(parsed.value)
  if (!checked.ok) {
    expect(checked.issues.map((i) => i.code)).toEqual([expect.stringMatching(/^(invalid_value|unknown_enum_value)$/)])
    return { accepted: false }
  }
  const node = checked.value.filter as ConditionNode
  expect(node).toMatchObject({ kind: 'Condition', field: field.name, operator: 'eq' })
  return { accepted: true, stored: bindable(node.value as string | number | boolean) }
}

/** The record path: the value the loader stores, or rejected (with the field named). */
function throughRecord(field: FieldDef, value: unknown): Outcome {
  const outcome = parseRecord({ type: 'company', record: { [companies.primaryKey]: 1, [field.name]: value } })
  if (!outcome.ok) {
    expect(outcome.reason).toContain(`company.${field.name}: expected`)
    return { accepted: false }
  }
  return { accepted: true, stored: outcome.value.record[field.name] }
}

const REJECTED = Symbol('rejected')
type Row = readonly [input: unknown, stored: unknown]

const TABLE: Readonly<Record<'integer' | 'number' | 'date' | 'datetime' | 'boolean' | 'enum', readonly Row[]>> = {
  integer: [
    [50, 50], ['50', 50], [' 50 ', 50], ['-7', -7], ['+7', 7], [-0, 0], ['-0', 0],
    ['007', 7], ['123456789012345', 123456789012345], ['9007199254740991', 9007199254740991],
    ['1e3', 1000], ['1E3', 1000], ['1.5e1', 15], ['12.000', 12], ['12.', 12], [12.0, 12],
    [50.5, REJECTED], ['50.5', REJECTED], ['1e-3', REJECTED], [2 ** 53, REJECTED], ['9007199254740993', REJECTED],
    ['fifty', REJECTED], ['0x10', REJECTED], ['1e400', REJECTED], [true, REJECTED], [[1], REJECTED], [{}, REJECTED],
  ],
  number: [
    [87, 87], ['87', 87], ['-12.5', -12.5], ['.5', 0.5], ['5.', 5], ['1e3', 1000], ['2.5E-1', 0.25], [' 3.25 ', 3.25], ['-0', 0],
    ['1e400', REJECTED], ['NaN', REJECTED], ['Infinity', REJECTED], ['1,5', REJECTED], ['12abc', REJECTED], [false, REJECTED],
  ],
  date: [
    ['2023-01-15', '2023-01-15'], ['20230115', '2023-01-15'], [' 2023-01-15 ', '2023-01-15'], [20230115, '2023-01-15'],
    ['2024-02-29', '2024-02-29'], ['20240229', '2024-02-29'], ['2000-02-29', '2000-02-29'],
    ['2023-02-29', REJECTED], ['1900-02-29', REJECTED], ['2023-02-30', REJECTED], ['20230230', REJECTED], ['2021-13-01', REJECTED],
    ['2023-00-10', REJECTED], ['0000-01-01', REJECTED], ['2023-1-5', REJECTED], ['2023-0115', REJECTED], ['2023/01/15', REJECTED],
    ['2023-01-15garbage', REJECTED], ['2023-01-15 10:00:00', REJECTED], [2023, REJECTED], [true, REJECTED],
  ],
  datetime: [
    ['2023-05-01 10:20:30', '2023-05-01 10:20:30'],
    ['2023-05-01T10:20:30', '2023-05-01 10:20:30'],
    ['2023-05-01 10:20', '2023-05-01 10:20:00'],
    ['2023-05-01 10:20:30.999', '2023-05-01 10:20:30'],
    ['2023-05-01 10:20:30 UTC', '2023-05-01 10:20:30'],
    ['2023-05-01 10:20:30UTC', '2023-05-01 10:20:30'],
    ['2023-05-01 10:20:30 utc', '2023-05-01 10:20:30'],
    ['2023-05-01T10:20:30Z', '2023-05-01 10:20:30'],
    ['2023-05-01 10:20:30+0000', '2023-05-01 10:20:30'],
    ['2023-05-01 10:20:30 +0000', '2023-05-01 10:20:30'],
    ['2023-05-01 10:20:30-00:00', '2023-05-01 10:20:30'],
    ['2023-05-01T10:20:30+02:00', '2023-05-01 08:20:30'],
    ['2023-05-01 01:00:00+0200', '2023-04-30 23:00:00'],
    ['2023-12-31 23:30:00-01:00', '2024-01-01 00:30:00'],
    ['2023-05-01', '2023-05-01 00:00:00'],
    ['20230501', '2023-05-01 00:00:00'],
    ['2023-05-01 24:00:00', REJECTED], ['2023-05-01 10:60:00', REJECTED], ['2023-02-29 10:00:00', REJECTED],
    ['2023-05-01 10:00:00+25:00', REJECTED], ['2023-05-01 10:00:00 CET', REJECTED], ['0001-01-01 00:30:00+01:00', REJECTED],
    ['2023-05-01 10:20:3x', REJECTED], ['2023-05-01 1:20:30', REJECTED], ['2023-05-01 10', REJECTED], ['yesterday', REJECTED], [1682936430, REJECTED],
  ],
  boolean: [
    [true, 1], [false, 0], [1, 1], [0, 0], ['1', 1], ['0', 0], ['true', 1], ['false', 0],
    ['TRUE', REJECTED], ['yes', REJECTED], [2, REJECTED], ['', REJECTED],
  ],
  enum: [], // built below from the catalog's own values and aliases
}

describe('a value means the same in a filter and in an imported record', () => {
  for (const [kind, rows] of Object.entries(TABLE) as [keyof typeof TABLE, readonly Row[]][]) {
    if (kind === 'enum') continue
    const field = fieldOf(kind)
    test.each(rows.map(([input, stored]) => [JSON.stringify(input) ?? String(input), input, stored] as const))(
      `${kind} (${field.name}): %s`,
      (_, input, stored) => {
        const expected: Outcome = stored === REJECTED ? { accepted: false } : { accepted: true, stored }
        expect(throughFilter(field, input)).toEqual(expected)
        expect(throughRecord(field, input)).toEqual(expected)
      },
    )
  }

  test('enum: any case, surrounding spaces and the listed aliases give the catalog spelling; others are rejected', () => {
    const field = fieldOf('enum', true)
    if (field.type.kind !== 'enum') throw new Error('unreachable')
    const [value] = field.type.values.filter((v) => /[a-z]/i.test(v) && v.toLowerCase() !== v.toUpperCase())
    const [alias, target] = Object.entries(field.type.aliases ?? {})[0]!
    const rows: Row[] = [
      [value!, value!], [value!.toUpperCase(), value!], [value!.toLowerCase(), value!], [` ${value!} `, value!],
      [alias, target], [alias.toUpperCase(), target],
      [`${value!}x`, REJECTED], [7, REJECTED], [[value!], REJECTED],
    ]
    for (const [input, stored] of rows) {
      const expected: Outcome = stored === REJECTED ? { accepted: false } : { accepted: true, stored }
      expect({ input, filter: throughFilter(field, input) }).toEqual({ input, filter: expected })
      expect({ input, record: throughRecord(field, input) }).toEqual({ input, record: expected })
    }
  })

  test('strings are kept as sent in both; numbers become their text', () => {
    const field = fieldOf('string')
    for (const [input, stored] of [['Acme', 'Acme'], [' Acme ', ' Acme '], [42, '42'], [true, REJECTED]] as const) {
      const expected: Outcome = stored === REJECTED ? { accepted: false } : { accepted: true, stored }
      expect(throughFilter(field, input)).toEqual(expected)
      expect(throughRecord(field, input)).toEqual(expected)
    }
  })

  test('the one deliberate difference: a blank value is absent (NULL) in a record, and not a value in a filter on numbers and dates', () => {
    for (const kind of ['integer', 'number', 'date', 'datetime'] as const) {
      const field = fieldOf(kind)
      for (const blank of ['', '   ']) {
        expect(throughFilter(field, blank)).toEqual({ accepted: false })
        expect(throughRecord(field, blank)).toEqual({ accepted: true, stored: null })
      }
    }
  })

  test('on text and enum fields a blank value is "no value" in both: NULL in a record, is_null in a filter (grammar-docs/guides/serving.md, "Missing values")', () => {
    for (const kind of ['string', 'enum'] as const) {
      const field = fieldOf(kind)
      for (const blank of ['', '   ']) {
        expect(throughRecord(field, blank)).toEqual({ accepted: true, stored: null })
        const parsed = parseQuery({ dataset: companies.name, filter: { [field.name]: { eq: blank } } })
        const checked = parsed.ok ? checkQuery(parsed.value) : parsed
        expect(checked.ok && checked.value.filter).toMatchObject({ kind: 'Condition', field: field.name, operator: 'is_null', value: true })
      }
    }
  })

  test('a refusal says why in both paths', () => {
    const field = fieldOf('date')
    const parsed = parseQuery({ dataset: companies.name, filter: { [field.name]: { eq: '2023-02-30' } } })
    const checked = parsed.ok ? checkQuery(parsed.value) : parsed
    expect(checked.ok ? [] : checked.issues.map((i) => i.message)).toEqual([expect.stringContaining('which is not a calendar date')])
    const record = parseRecord({ type: 'company', record: { [companies.primaryKey]: 1, [field.name]: '2023-02-30' } })
    expect(record.ok ? '' : record.reason).toContain('got "2023-02-30", which is not a calendar date')
  })
})
