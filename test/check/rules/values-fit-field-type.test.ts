import { describe, expect, test } from 'vitest'
import { companies, expectIssues, expectValid, fundings } from '../harness.js'

describe('values-fit-field-type', () => {
  test('text with a NUL character or an unpaired surrogate is refused, in every string operand', () => {
    const reason = 'which contains a NUL character or an unpaired UTF-16 surrogate'
    for (const filter of [
      { name: 'a\u0000b' },
      { name: { contains: 'x\u0000' } },
      { name: { in: ['ok', '\ud800'] } },
      { industries: { has_any: ['\udc00x'] } },
    ]) {
      const [issue] = expectIssues(companies(filter), [{ code: 'invalid_value' }])
      expect(issue?.message).toContain(reason)
    }
    // A well-formed pair (an emoji) and other control characters are text.
    expectValid(companies({ name: { in: ['ok\u{1F600}', 'tab\there'] } }))
  })

  test('a non-numeric string on an integer field', () => {
    const [issue] = expectIssues(companies({ employees: { gte: 'fifty' } }), [{
      code: 'invalid_value',
      path: '/filter/employees/gte',
      message: '"gte" on field "employees" (integer) takes an integer (a number or a string of digits); got "fifty".',
    }])
    expect(issue?.expected).toBe('an integer (a number or a string of digits)')
    expect(issue?.got).toBe('"fifty"')
  })

  test('a fractional value on an integer field', () => {
    expectIssues(companies({ employees: 50.5, total_funding: { lt: '10.25' } }), [
      { code: 'invalid_value', path: '/filter/employees', message: '"eq" on field "employees" (integer) takes an integer (a number or a string of digits); got 50.5, which is not a whole number.' },
      { code: 'invalid_value', path: '/filter/total_funding/lt' },
    ])
  })

  test('hex and empty strings are not numbers', () => {
    expectIssues(companies({ svc_score: { in: ['0x10', '', '12.5'] } }), [
      { code: 'invalid_value', path: '/filter/svc_score/in/0' },
      { code: 'invalid_value', path: '/filter/svc_score/in/1' },
    ])
  })

  test('numeric strings are converted', () => {
    const checked = expectValid(companies({ employees: { between: ['50', '200'] }, svc_score: { gt: '87.5' } }))
    expect(checked.filter).toMatchObject({ kind: 'And', children: [{ value: [50, 200] }, { value: 87.5 }] })
  })

  test('dates must be calendar dates; the compact form is normalised', () => {
    expectIssues(companies({ last_funding_date: { gte: '2023-02-30' } }), [{
      code: 'invalid_value',
      path: '/filter/last_funding_date/gte',
      message: '"gte" on field "last_funding_date" (date) takes a date "YYYY-MM-DD"; got "2023-02-30", which is not a calendar date.',
    }])
    expectIssues(companies({ last_funding_date: { gte: '01/02/2023' } }), [{ code: 'invalid_value', path: '/filter/last_funding_date/gte' }])
    expect(expectValid(companies({ last_funding_date: '20240229' })).filter).toMatchObject({ value: '2024-02-29' })
    // Either both dashes or none: half-compact spellings are not a form anyone sends.
    expectIssues(companies({ last_funding_date: { in: ['2024-0229', '202402-29'] }, added_date: { gte: '2024-0229' } }), [
      { code: 'invalid_value', path: '/filter/last_funding_date/in/0' },
      { code: 'invalid_value', path: '/filter/last_funding_date/in/1' },
      { code: 'invalid_value', path: '/filter/added_date/gte' },
    ])
  })

  test('datetimes accept ISO, a plain date, Z and UTC, and are normalised to UTC', () => {
    const values = ['2023-05-01T10:20:30Z', '2023-05-01 10:20:30 UTC', '2023-05-01T12:20:30+02:00', '2023-05-01T10:20:30.123Z']
    for (const v of values) expect(expectValid(companies({ added_date: { gte: v } })).filter).toMatchObject({ value: '2023-05-01 10:20:30' })
    expect(expectValid(companies({ added_date: { lt: '2023-05-01' } })).filter).toMatchObject({ value: '2023-05-01 00:00:00' })
    expectIssues(companies({ added_date: { lt: '2023-05-01 25:00:00' } }), [{
      code: 'invalid_value',
      path: '/filter/added_date/lt',
      message: '"lt" on field "added_date" (datetime) takes a datetime "YYYY-MM-DD HH:MM:SS"; got "2023-05-01 25:00:00", which is not a time of day.',
    }])
  })

  test('datetimes before year 100 keep their year (no two-digit-year shift to 19xx)', () => {
    expect(expectValid(companies({ added_date: { gte: '0050-01-01' } })).filter).toMatchObject({ value: '0050-01-01 00:00:00' })
    expect(expectValid(companies({ added_date: { gte: '0099-12-31T23:00:00-02:00' } })).filter).toMatchObject({ value: '0100-01-01 01:00:00' })
    expectIssues(companies({ added_date: { gte: '0001-01-01T00:30:00+01:00' } }), [{ code: 'invalid_value', path: '/filter/added_date/gte' }])
  })

  test('a datetime offset must be a real one (hours below 24, minutes below 60)', () => {
    expect(expectValid(companies({ added_date: { gte: '2023-05-01T10:20:30-03:30' } })).filter).toMatchObject({ value: '2023-05-01 13:50:30' })
    expectIssues(companies({ added_date: { gte: '2023-05-01T10:20:30+99:99' } }), [{
      code: 'invalid_value',
      path: '/filter/added_date/gte',
      message: '"gte" on field "added_date" (datetime) takes a datetime "YYYY-MM-DD HH:MM:SS"; got "2023-05-01T10:20:30+99:99", which has no valid time zone offset.',
    }])
  })

  test('booleans take true/false and 0/1', () => {
    expect(expectValid(companies({ has_mobile: 1 })).filter).toMatchObject({ value: true })
    expectIssues(companies({ has_mobile: 'yes' }), [{
      code: 'invalid_value',
      path: '/filter/has_mobile',
      message: '"eq" on field "has_mobile" (boolean) takes true or false; got "yes".',
    }])
  })

  test('null is only allowed as eq', () => {
    expectIssues(fundings({ amount: { ne: null, gt: null } }), [
      { code: 'invalid_value', path: '/filter/amount/ne', message: '"ne" on field "amount" (integer) cannot take null; to select records that have a value use {"is_null": false}.' },
      { code: 'invalid_value', path: '/filter/amount/gt', message: '"gt" on field "amount" (integer) needs a value, not null; null is only allowed as {"eq": null} (meaning {"is_null": true}).' },
    ])
  })

  test('booleans on a string field are refused, numbers become strings', () => {
    expectIssues(companies({ zip: true }), [{ code: 'invalid_value', path: '/filter/zip' }])
    expect(expectValid(companies({ zip: 94107 })).filter).toMatchObject({ value: '94107' })
  })

  test('every bad element of a list is reported at its index', () => {
    expectIssues(companies({ employees: { in: [1, 'x', 2, true] } }), [
      { code: 'invalid_value', path: '/filter/employees/in/1' },
      { code: 'invalid_value', path: '/filter/employees/in/3' },
    ])
  })
})
