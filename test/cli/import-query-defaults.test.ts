/**
 * `import` reports each record with a field its type does not have (a did-you-mean per field) and
 * `--strict` rejects it; and every command that opens a database defaults to the one `serve` and
 * `keys` use (`./.ventureql/ventureql.db`): import, query, explain and similar-index without `--database`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/store/open.js'
import { runCli } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'vql-import-defaults-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lines = [
  { type: 'company', record: { id: 1, name: 'Alpha', employes: 40, country: 'USA' } },
  { type: 'company', record: { id: 2, name: 'Beta', employees: 12, contry: 'DEU', zzzqqq: 1 } },
  { type: 'company', record: { id: 3, name: 'Gamma', employees: 7, country: 'FRA' } },
  { type: 'investor', record: { id: 9, name: 'Fund', deal_aggregates: {} } },
]
const file = join(dir, 'records.jsonl')
writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')

function stored(database: string, sql: string): unknown[] {
  const vdb = openDatabase(database, { readonly: true })
  try {
    return vdb.sqlite.prepare(sql).all()
  } finally {
    vdb.sqlite.close()
  }
}

describe('import: unknown fields', () => {
  it('reports each record with one, per line, with a did-you-mean, stores the rest of it and exits 0', async () => {
    const database = join(dir, 'lenient.db')
    const { stdout, exitCode } = await runCli(['import', '--database', database, file])
    expect(exitCode).toBe(0)
    expect(stdout).toContain(`${file}:1: unknown field company.employes (did you mean employees?); stored without it (--strict rejects such a record)`)
    expect(stdout).toMatch(new RegExp(`${file}:2: unknown field company.contry \\(did you mean country[^)]*\\?\\); unknown field company.zzzqqq; stored without them`))
    // A field the API shows but the loader derives (an investor's aggregates) is no mistake.
    expect(stdout).not.toMatch(/:3:|:4:/)
    expect(stdout).toMatch(/imported 3 companies, 1 investors/)
    expect(stored(database, 'select id, employees from companies order by id')).toEqual([{ id: 1, employees: null }, { id: 2, employees: 12 }, { id: 3, employees: 7 }])
  })

  it('with --strict rejects those records (exit code 1, the same did-you-mean) and keeps the others', async () => {
    const database = join(dir, 'strict.db')
    const { stdout, exitCode } = await runCli(['import', '--strict', '--database', database, file])
    expect(exitCode).toBe(1)
    expect(stdout).toMatch(/imported 1 companies, 1 investors.*rejected 2/)
    expect(stdout).toContain(`${file}:1: unknown field company.employes (did you mean employees?); rejected (--strict)`)
    expect(stdout).toMatch(new RegExp(`${file}:2: unknown field company.contry .*; rejected \\(--strict\\)`))
    expect(stored(database, 'select id from companies order by id')).toEqual([{ id: 3 }])
  })
})

describe('the default database', () => {
  it('is ./.ventureql/ventureql.db for import, query, explain and similar-index, as for keys and serve', async () => {
    const home = mkdtempSync(join(dir, 'home-'))
    const imported = await runCli(['import', file], { cwd: home })
    expect(imported.exitCode, imported.stderr).toBe(0)
    expect(existsSync(join(home, '.ventureql', 'ventureql.db'))).toBe(true)
    const request = join(dir, 'request.json')
    writeFileSync(request, JSON.stringify({ dataset: 'companies', filter: { country: { in: ['USA', 'FRA'] } } }))
    const queried = await runCli(['query', request], { cwd: home })
    expect(queried.exitCode, queried.stderr).toBe(0)
    expect(JSON.parse(queried.stdout).results.map((c: { id: number | string }) => Number(c.id)).sort()).toEqual([1, 3])
    const explained = await runCli(['explain', request], { cwd: home })
    expect(explained.exitCode, explained.stderr).toBe(0)
    expect(explained.stdout).toMatch(/^query_id: /)
    const indexed = await runCli(['similar-index'], { cwd: home })
    expect(indexed.exitCode, indexed.stderr).toBe(0)
    expect((await runCli(['keys', 'list', '--json'], { cwd: home })).exitCode).toBe(0)
  })

  it('is named in the help, and a missing one is a clear error', async () => {
    for (const command of ['query', 'explain', 'import', 'similar-index']) {
      const help = await runCli([command, '--help'])
      expect(help.stdout.replace(/\s+/g, ' '), command).toContain('default ./.ventureql/ventureql.db')
    }
    const empty = mkdtempSync(join(dir, 'empty-'))
    writeFileSync(join(empty, 'r.json'), '{"dataset":"companies"}')
    await expect(runCli(['query', 'r.json'], { cwd: empty, rethrow: true })).rejects.toThrow(/\.ventureql\/ventureql\.db does not exist/)
  })
})
