/**
 * @module grammar-docs/guides/testing.md: its example (the first TypeScript block of "Your backend
 * in twenty lines") runs as written, with `ventureql` and `ventureql/testing` pointed at src/; it
 * stays about twenty lines; and the counterexample report it explains has the lines a real failure
 * of the harness prints.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, test } from 'vitest'
import { checkConformance, ConformanceError, createFixtureDatabase, loadSnapshot } from '../../src/testing/index.js'
import { nullUnsafeNotTarget } from '../testing/targets.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const GUIDE = readFileSync(join(ROOT, 'grammar-docs', 'guides', 'testing.md'), 'utf8')

/** The first fenced block of `lang` under `heading`. */
function block(heading: string, lang: string): string {
  const start = GUIDE.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`testing.md: no heading ${heading}`)
  const found = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(GUIDE.slice(start))
  if (!found) throw new Error(`testing.md: no ${lang} block under ${heading}`)
  return found[1]!
}

const example = block('## Your backend in twenty lines', 'ts')

test('the example is about twenty lines and imports only the package\'s entry points', () => {
  const lines = example.trim().split('\n')
  expect(lines.length).toBeLessThanOrEqual(25)
  const imports = [...example.matchAll(/from '([^']+)'/g)].map((m) => m[1])
  expect(imports).toEqual(['vitest', 'ventureql', 'ventureql/testing'])
})

// The example is a vitest test file: written with the package's imports pointed at src/ and
// imported here, its test() registers in this file and runs with it.
const dir = join(ROOT, 'test-output', 'testing-guide')
mkdirSync(dir, { recursive: true })
const file = join(dir, `example-${process.pid}.ts`)
writeFileSync(file, example
  .replace("from 'ventureql/testing'", `from ${JSON.stringify(pathToFileURL(join(ROOT, 'src', 'testing', 'index.ts')).href)}`)
  .replace("from 'ventureql'", `from ${JSON.stringify(pathToFileURL(join(ROOT, 'src', 'index.ts')).href)}`))
await import(pathToFileURL(file).href)

test('the report the guide explains has the lines a real failure prints', async () => {
  const vdb = await createFixtureDatabase({ companies: 120 })
  try {
    const snapshot = await loadSnapshot(vdb)
    const error = await checkConformance(nullUnsafeNotTarget(snapshot), { snapshot, laws: ['complement'], numRuns: 50 }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(ConformanceError)
    const report = (error as ConformanceError).message
    const shown = block('## Reading a counterexample', 'text')
    const kinds = [/^\d+ of \d+ conformance laws failed:$/m, /^law "complement": Property failed after \d+ tests$/m, /^\{ seed: -?\d+, path: "[\d:]+", endOnFailure: true \}$/m,
      /^Counterexample: \[\{"dataset":"\w+","filter":.*\}\]$/m, /^Shrunk \d+ time\(s\)$/m, /^Got error: count\(P\) \+ count\(not P\) = count\(all\) does not hold: count\(P\) = \d+, count\(not P\) = \d+, their sum \d+, count\(all\) = \d+$/m]
    for (const kind of kinds) {
      expect(shown, `the guide lacks ${kind}`).toMatch(kind)
      expect(report, `the report lacks ${kind}`).toMatch(kind)
    }
  } finally {
    await vdb.close()
  }
})
