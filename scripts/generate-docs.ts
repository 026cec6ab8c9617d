/**
 * @module `npm run docs`: writes the generated reference pages of grammar-docs/ from the catalog
 * and the issue codes (src/docs/reference.ts), and the API reference from the OpenAPI document
 * (src/docs/api-reference.ts). The hand-written pages (language.md, list-parameters.md, records.md)
 * are never touched.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { apiReferencePages } from '../src/docs/api-reference.js'
import { referencePages } from '../src/docs/reference.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'grammar-docs')

for (const page of [...referencePages(), ...apiReferencePages()]) {
  const file = join(root, page.path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, page.content)
  console.log(`wrote grammar-docs/${page.path}`)
}
