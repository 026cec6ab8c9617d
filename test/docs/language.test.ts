/**
 * @module The hand-written grammar-docs/language.md stays consistent with the code: every section
 * the code cites exists, every anchor the generated pages link to exists, and the limits table
 * shows the defaults of src/check/limits.ts.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { DEFAULT_LIMITS } from '../../src/check/limits.js'
import { ISSUE_CODES } from '../../src/errors/codes.js'
import { referencePages } from '../../src/docs/reference.js'

const repo = join(import.meta.dirname, '..', '..')
const language = readFileSync(join(repo, 'grammar-docs', 'language.md'), 'utf8')
const headings = [...language.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!.trim())
/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string): string => heading.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')
const anchors = new Set(headings.map(anchor))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [])
}

test('every section cited as language.md, "Heading" in src/ exists', () => {
  const missing: string[] = []
  for (const file of sourceFiles(join(repo, 'src'))) {
    const text = readFileSync(file, 'utf8').replace(/\n\s*\*\s*/g, ' ')
    for (const m of text.matchAll(/language\.md,? (?:sections? )?((?:"[^"]+"(?:,? (?:and )?)?)+)/g)) {
      for (const cited of m[1]!.matchAll(/"([^"]+)"/g)) {
        if (!headings.includes(cited[1]!)) missing.push(`${file.slice(repo.length + 1)}: "${cited[1]}"`)
      }
    }
    for (const m of text.matchAll(/language\.md#([a-z0-9_-]+)/g)) {
      if (!anchors.has(m[1]!)) missing.push(`${file.slice(repo.length + 1)}: #${m[1]}`)
    }
  }
  expect(missing, `sections cited but not in grammar-docs/language.md (headings: ${headings.join(', ')})`).toEqual([])
})

test('every anchor into language.md from the generated pages and from language.md itself exists', () => {
  const texts = [language, ...referencePages().map((p) => p.content)]
  const links = texts.flatMap((t) => [...t.matchAll(/language\.md#([a-z0-9_-]+)|\]\(#([a-z0-9_-]+)\)/g)].map((m) => m[1] ?? m[2]!))
  expect(links.length).toBeGreaterThan(10)
  expect(links.filter((l) => !anchors.has(l))).toEqual([])
})

test('the limits table shows every limit with its default value', () => {
  for (const [name, value] of Object.entries(DEFAULT_LIMITS)) {
    expect(language, `limit ${name}`).toMatch(new RegExp(`\\| \`${name}\` \\| ${value} \\|`))
  }
})

test('every issue code named in language.md exists', () => {
  const named = [...language.matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)].map((m) => m[1]!)
  const codeLike = named.filter((n) => /^(unknown|empty|invalid|no|not|limit|too|operator|missing)_|^query_outdated$/.test(n))
  expect(codeLike.length).toBeGreaterThan(8)
  expect(codeLike.filter((c) => !(c in ISSUE_CODES))).toEqual([])
})
