/**
 * The package as a consumer gets it: `npm pack`, installed into a new strict TypeScript project
 * (ESM and CJS; `strict`, no `skipLibCheck`, `moduleResolution: nodenext`, no @types/better-sqlite3
 * or @types/pg), a program using the four entry points (`ventureql`, `ventureql/http`,
 * `ventureql/internal`, `ventureql/testing` with the consumer's own fast-check) compiled with the
 * consumer's own `tsc` and run against a small fixture database; the typed-query examples of the
 * README and of the embedding guide are compiled with it. The root's bundles never reach fast-check,
 * a peer dependency of `ventureql/testing` only.
 *
 * Offline and fast: the tarball is unpacked into the project's node_modules the way npm lays it
 * out, and its dependencies (and the consumer's `typescript` and `@types/node`) are symlinked from
 * this repository's node_modules, so nothing is downloaded and better-sqlite3 is not rebuilt. The
 * dependencies linked are the ones the packed package.json declares, so a runtime import of an
 * undeclared package fails here. dist/ is rebuilt first when it is older than src/ (`npm ci` builds it).
 */
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFixtureDatabase, FIXTURE_AS_OF } from '../../src/internal.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const REPO_MODULES = join(ROOT, 'node_modules')

let work: string
let tarball: string
let fixture: string

/** The newest modification time of any file under `dir`. */
function newest(dir: string): number {
  let max = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return max
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vql-consumer-'))
  const built = join(ROOT, 'dist', 'index.d.ts')
  if (!existsSync(built) || statSync(built).mtimeMs < newest(join(ROOT, 'src'))) {
    await run('npm', ['run', 'build'], { cwd: ROOT })
  }
  // --ignore-scripts: `prepare` would build again; dist is current.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: ROOT })
  tarball = join(work, stdout.trim().split('\n').pop()!)
  fixture = join(work, 'fixture.db')
  const vdb = await createFixtureDatabase({ file: fixture })
  await vdb.close()
}, 300_000)

afterAll(() => {
  if (work && !process.env['VQL_KEEP_CONSUMER']) rmSync(work, { recursive: true, force: true })
})

/**
 * The unpacked package's budget, in bytes as npm counts them (`npm pack --dry-run` "unpacked size"):
 * 3.09 MB with in-memory facets, the caller's-thread lane, typo search by whole names and
 * `ventureql/testing`, about two thirds of it the unminified ESM and CJS builds and their
 * declarations. A jump past it is a
 * bundling mistake (a dependency inlined, a build duplicated) until shown otherwise.
 */
const PACKAGE_BUDGET_BYTES = 3_300_000

/** Every file under `dir`, recursively. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(entry.parentPath, entry.name)
    return entry.isDirectory() ? listFiles(path) : [path]
  })
}

/** A new project of `type` with the tarball installed; returns its directory. */
async function project(type: 'module' | 'commonjs'): Promise<string> {
  const dir = join(work, type)
  const modules = join(dir, 'node_modules')
  mkdirSync(join(modules, 'ventureql'), { recursive: true })
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'ventureql'), '--strip-components=1'])
  const packed = JSON.parse(readFileSync(join(modules, 'ventureql', 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> }
  // The package's dependencies, the peer dependencies a consumer of ventureql/testing installs
  // (fast-check), and the consumer's own compiler and Node types: nothing else.
  for (const name of [...Object.keys(packed.dependencies), ...Object.keys(packed.peerDependencies), 'typescript', '@types/node']) {
    mkdirSync(dirname(join(modules, name)), { recursive: true })
    symlinkSync(join(REPO_MODULES, name), join(modules, name), 'dir')
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${type}`, private: true, type }))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext',
      strict: true, noUncheckedIndexedAccess: true, skipLibCheck: false, noEmitOnError: true, outDir: 'out',
    },
    include: ['src'],
  }))
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'main.ts'), program(type))
  // The documented typed-query examples compile as written (ESM: they use top-level await).
  if (type === 'module') {
    writeFileSync(join(dir, 'src', 'readme-typed.ts'), docExample('README.md', '### One typed library query'))
    writeFileSync(join(dir, 'src', 'guide-typed.ts'), docExample('grammar-docs/guides/embedding.md', '## Typed queries'))
  }
  return dir
}

/** The first TypeScript block of a section of a document of this repository. */
function docExample(file: string, heading: string): string {
  const doc = readFileSync(join(ROOT, file), 'utf8')
  const start = doc.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`${file}: no heading ${heading}`)
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(start))
  if (!block) throw new Error(`${file}: no ts block under ${heading}`)
  return `${block[1]}\nexport {}\n`
}

/** The consumer's program: a typed query, a typo the compiler must refuse, and the HTTP entry. */
function program(type: 'module' | 'commonjs'): string {
  const body = `
  const database = process.argv[2]
  if (!database) throw new Error('usage: main <database>')
  const db = typedEngine(createEngine({ database, workers: 1 }))
  const filter: Filter<'companies'> = { stage: { in: ['a', 'b'] }, employees: { gte: 1 } }
  // @ts-expect-error 'Z' is not a stage: the published types are the typed API, not any
  const typo: Filter<'companies'> = { stage: 'Z' }
  void typo
  const r = await db.query({ dataset: 'companies', filter, sort: [{ name: 'asc' }], per_page: 3 })
  if (!r.ok) throw new Error(formatIssues(r.issues))
  const first: CompanyRecord | undefined = r.value.results[0]
  const stage: CompanyRecord['stage'] = first ? first.stage : null
  const handle: BetterSqliteDatabase | undefined = undefined
  void handle
  const auth: AuthHook = (request) => request.headers.has('x-user') ? { ok: true, identity: { owner: 'u' } } : { ok: false }
  const app = createApp(db.engine)
  const handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void> = toNodeHandler(createApp(db.engine, { auth }))
  void handler
  const res = await app.fetch(new Request('http://localhost/openapi.json'))
  const denied = await app.fetch(new Request('http://localhost/companies'))
  // The /docs page's files come from the installed swagger-ui-dist, found from the installed ventureql.
  const bundle = await app.fetch(new Request('http://localhost/docs/swagger-ui-bundle.js'))
  const docs = { status: bundle.status, bytes: (await bundle.arrayBuffer()).byteLength }
  const openapi = (await res.json()) as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { example?: unknown }> }> }>> }
  const example = openapi.paths['/companies/{id}']?.['get']?.responses['200']?.content['application/json']?.example !== undefined
  await db.close()
  // The typed entry closes its engine; the error class is the root's (one class across the bundles).
  const closed = await db.count({ dataset: 'companies' }).then(() => false, (error: unknown) => error instanceof EngineClosedError)
  // ventureql/testing: typed arbitraries, the reference evaluator's snapshot by path, the conformance laws.
  const snapshot = await loadSnapshot(database)
  const filters: fc.Arbitrary<Filter<'investors'>> = filterArbitrary('investors', { values: snapshot, depth: 1 })
  const sample: Filter<'investors'>[] = fc.sample(filters, 3)
  const engine = createEngine({ database, workers: 1 })
  const target: ConformanceTarget = {
    async run(query) {
      const answer = await engine.query(query)
      if (!answer.ok) throw new Error(formatIssues(answer.issues))
      return { ids: answer.value.results.map((record) => record['investor_id'] as number), total: answer.value.meta.total_record_count }
    },
  }
  const conformance = await checkConformance(target, { snapshot, numRuns: 3, datasets: ['investors'], laws: ['reference', 'complement'] })
  await engine.close()
  const testing = { sampled: sample.length, laws: conformance.laws.map((l) => l.law), runs: conformance.laws.map((l) => l.runs) }
  console.log(JSON.stringify({ total: r.value.meta.total_record_count, count: r.value.results.length, name: first?.name, stage, openapi: res.status, denied: denied.status, docs, example, closed, asOf: FIXTURE_AS_OF, testing }))
`
  const imports = `import { createEngine, EngineClosedError, formatIssues, typedEngine, type BetterSqliteDatabase, type CompanyRecord, type Filter } from 'ventureql'
import { createApp, toNodeHandler, type AuthHook } from 'ventureql/http'
import { FIXTURE_AS_OF } from 'ventureql/internal'
import { checkConformance, filterArbitrary, loadSnapshot, type ConformanceTarget } from 'ventureql/testing'
import fc from 'fast-check'
`
  return type === 'module'
    ? `${imports}${body}`
    : `${imports}async function main(): Promise<void> {${body}}\nmain().catch((error: unknown) => { console.error(error); process.exitCode = 1 })\n`
}

describe('the packed package in a strict consumer project', () => {
  it('ships no types it cannot resolve: no driver type packages in the consumer, and none imported', async () => {
    const dir = await project('module')
    const modules = join(dir, 'node_modules')
    expect(existsSync(join(modules, '@types', 'better-sqlite3'))).toBe(false)
    expect(existsSync(join(modules, '@types', 'pg'))).toBe(false)
    const declarations = readdirSync(join(modules, 'ventureql', 'dist')).filter((f) => /\.d\.c?ts$/.test(f))
    expect(declarations).toEqual(expect.arrayContaining(['index.d.ts', 'index.d.cts', 'http.d.ts', 'http.d.cts', 'internal.d.ts', 'internal.d.cts', 'testing.d.ts', 'testing.d.cts']))
    for (const file of declarations) {
      const text = readFileSync(join(modules, 'ventureql', 'dist', file), 'utf8')
      expect(text, file).not.toMatch(/from ['"](better-sqlite3|pg|pg-copy-streams)['"]|import ['"](better-sqlite3|pg)['"]/)
    }
  })

  it('fits the size budget: at most 3.3 MB unpacked, and no source map carries sources', async () => {
    const dir = join(work, 'unpacked')
    mkdirSync(dir)
    await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'])
    const files = listFiles(dir)
    const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0)
    const largest = files.map((file) => `${statSync(file).size} ${file.slice(dir.length + 1)}`).sort((a, b) => parseInt(b) - parseInt(a)).slice(0, 5)
    expect(bytes, `unpacked ${bytes} bytes; largest: ${largest.join(', ')}`).toBeLessThanOrEqual(PACKAGE_BUDGET_BYTES)
    for (const map of files.filter((file) => file.endsWith('.map'))) {
      expect(JSON.parse(readFileSync(map, 'utf8')), map).not.toHaveProperty('sourcesContent')
    }
  })

  it.each(['module', 'commonjs'] as const)('%s: compiles with the consumer\'s tsc and runs', async (type) => {
    const dir = existsSync(join(work, type)) ? join(work, type) : await project(type)
    const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc')
    const compiled = await run(process.execPath, [tsc, '-p', dir]).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`consumer tsc failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`)
    })
    expect(compiled.stdout).toBe('')
    const out = readFileSync(join(dir, 'out', 'main.js'), 'utf8')
    // The emitted module system is the one asked for: both conditions of the exports map are used.
    expect(out).toMatch(type === 'module' ? /from 'ventureql\/http'/ : /require\("ventureql\/http"\)/)
    const { stdout } = await run(process.execPath, [join(dir, 'out', 'main.js'), fixture], { cwd: dir })
    const printed = JSON.parse(stdout) as { total: number; count: number; name: string; stage: string; openapi: number; denied: number; docs: { status: number; bytes: number }; example: boolean; closed: boolean; asOf: string; testing: unknown }
    expect(printed.total).toBeGreaterThan(3)
    expect(printed.count).toBe(3)
    expect(typeof printed.name).toBe('string')
    expect(['a', 'b']).toContain(printed.stage)
    expect(printed.openapi).toBe(200)
    expect(printed.denied).toBe(403)
    expect(printed.docs.status).toBe(200)
    expect(printed.docs.bytes).toBe(statSync(join(REPO_MODULES, 'swagger-ui-dist', 'swagger-ui-bundle.js')).size)
    // The examples are bundled into dist/: no file of src/ is read at run time.
    expect(printed.example).toBe(true)
    expect(printed.closed).toBe(true)
    expect(printed.asOf).toBe(FIXTURE_AS_OF)
    expect(printed.testing).toEqual({ sampled: 3, laws: ['reference', 'complement'], runs: [3, 3] })
    expect(out).toMatch(type === 'module' ? /from 'ventureql\/testing'/ : /require\("ventureql\/testing"\)/)
  })

  it('keeps fast-check out of the root: no bundle the root reaches imports it, while ventureql/testing\'s do', () => {
    const dist = join(work, 'unpacked-dist')
    if (!existsSync(dist)) {
      mkdirSync(dist)
      execFileSync('tar', ['-xzf', tarball, '-C', dist, '--strip-components=1'])
    }
    const packed = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }>; dependencies: Record<string, string> }
    expect(packed.peerDependencies['fast-check']).toBeDefined()
    expect(packed.peerDependenciesMeta['fast-check']?.optional).toBe(true)
    expect(packed.dependencies['fast-check']).toBeUndefined()
    /** The bare module names the bundles reachable from `entry` import (relative imports followed). */
    const reached = (entry: string): Set<string> => {
      const seen = new Set<string>()
      const bare = new Set<string>()
      const visit = (file: string): void => {
        if (seen.has(file)) return
        seen.add(file)
        const text = readFileSync(file, 'utf8')
        for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g)) {
          const spec = match[1]!
          if (spec.startsWith('.')) visit(join(dirname(file), spec))
          else bare.add(spec)
        }
      }
      visit(join(dist, 'dist', entry))
      return bare
    }
    for (const entry of ['index.js', 'index.cjs', 'http.js', 'http.cjs']) expect([...reached(entry)], entry).not.toContain('fast-check')
    for (const entry of ['testing.js', 'testing.cjs']) expect([...reached(entry)], entry).toContain('fast-check')
  })
})
