/**
 * @module `npm run docs`: writes the generated reference pages of grammar-docs/ from the catalog
 * and the issue codes (src/docs/reference.ts). The hand-written language.md is never touched.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { referencePages } from '../src/docs/reference.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'grammar-docs')

for (const page of referencePages()) {
  const file = join(root, page.path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, page.content)
  console.log(`wrote grammar-docs/${page.path}`)
}
