/**
 * @module Writes the Markdown summary and the SVG chart again from a results file, without
 * measuring: `npx tsx bench/suite/rerender.ts [name]` reads `bench/results/<name>.json` (default
 * `latest`) and rewrites `<name>.md` and `<name>.svg` (and the JSON's targets) with the current
 * report code.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RESULTS_DIR, writeReport, type SuiteResult } from './report.js'

const name = process.argv[2] ?? 'latest'
process.env.BENCH_RESULTS_NAME = name
const saved = JSON.parse(readFileSync(join(RESULTS_DIR, `${name}.json`), 'utf8')) as SuiteResult & { generated: string }
writeReport(saved)
