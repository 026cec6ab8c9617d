/**
 * @module Generated-docs drift: the committed reference pages must equal what the generator
 * produces from the catalog now, so a catalog change cannot ship with stale docs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { apiReferencePages } from '../../src/docs/api-reference.js'
import { referencePages } from '../../src/docs/reference.js'
import { DATASET_NAMES, OPERATOR_NAMES } from '../../src/catalog/index.js'
import { ISSUE_CODES } from '../../src/errors/codes.js'

const root = join(import.meta.dirname, '..', '..', 'grammar-docs')
const pages = [...referencePages(), ...apiReferencePages()]

describe('grammar-docs/reference is up to date', () => {
  test.each(pages.map((p) => [p.path, p.content] as const))('%s', (path, content) => {
    const file = join(root, path)
    expect(existsSync(file), `grammar-docs/${path} is missing: run \`npm run docs\``).toBe(true)
    expect(readFileSync(file, 'utf8'), `grammar-docs/${path} differs from the catalog: run \`npm run docs\``).toBe(content)
  })

  test('no stale generated page is left behind', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
    const onDisk = walk(join(root, 'reference')).map((f) => relative(root, f).split('\\').join('/')).sort()
    expect(onDisk, 'grammar-docs/reference holds pages the generator no longer writes: delete them and run `npm run docs`').toEqual(pages.map((p) => p.path).sort())
  })
})

test('the generated pages cover every dataset, operator and issue code', () => {
  const all = pages.map((p) => p.content).join('\n')
  for (const name of DATASET_NAMES) expect(pages.some((p) => p.path === `reference/datasets/${name}.md`)).toBe(true)
  for (const op of OPERATOR_NAMES) expect(all).toContain(`| \`${op}\` |`)
  for (const c of Object.keys(ISSUE_CODES)) expect(all).toContain(`| \`${c}\` |`)
})
