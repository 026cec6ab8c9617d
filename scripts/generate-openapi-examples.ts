/**
 * @module `npm run openapi-examples`: writes src/http/openapi-examples.json, the OpenAPI document's
 * example request and answer of every operation, from the demo database (src/docs/openapi-examples.ts).
 * Run it after changing an endpoint's answers or the demo data generator; the drift test
 * (test/docs/openapi-examples.test.ts) fails until the file is current.
 */
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { examplesFileText, produceOpenApiExamples } from '../src/docs/openapi-examples.js'

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'http', 'openapi-examples.json')
const examples = await produceOpenApiExamples()
writeFileSync(file, examplesFileText(examples))
console.log(`wrote src/http/openapi-examples.json (${Object.keys(examples.operations).length} operations)`)
