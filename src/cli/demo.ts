/**
 * @module `ventureql demo`: the one command a new user runs on a fresh clone (`npm start`). It
 * generates the demo database on first run (the same generator and loader as `generate`), then
 * runs the spec's example structured query (spec 4.14: investors through the industries of the
 * companies they invested in) and prints the result envelope, its SQL and how to go further.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { createEngine } from '../engine.js'
import { formatIssues } from '../errors/format.js'
import { generateInto } from '../store/generate/build.js'
import { openDatabase } from '../store/open.js'
import { DEFAULT_DEMO_COMPANIES } from './generate.js'

/** The example of spec 4.14, with the industry spelled as the generator's vocabulary spells it. */
export const DEMO_REQUEST = Object.freeze({
  dataset: 'investor',
  filter: {
    and: [
      { portfolio_size: { gte: 10 } },
      { foreign: { dataset: 'companies', filter: { industries: { in: ['Fintech'] } } } },
    ],
  },
  sort: [{ portfolio_size: 'desc' }],
  per_page: 5,
})

export function registerDemo(program: Command): void {
  program.command('demo')
    .description('Generate the demo database if missing, then run the spec\'s example query on it.')
    .option('--data-dir <dir>', 'where the demo database lives', './.ventureql')
    .option('--companies <n>', 'size of the demo dataset when it is generated', (v) => Number(v), DEFAULT_DEMO_COMPANIES)
    .action(async (opts: { dataDir: string; companies: number }) => {
      const file = resolve(join(opts.dataDir, 'ventureql.db'))
      if (!existsSync(file)) {
        mkdirSync(opts.dataDir, { recursive: true })
        const started = Date.now()
        process.stderr.write(`demo: generating ${opts.companies} companies into ${file} ...\n`)
        const vdb = openDatabase(file)
        try {
          generateInto(vdb, { companies: opts.companies, seed: 1 })
        } finally {
          await vdb.close()
        }
        process.stderr.write(`demo: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
      }
      const engine = createEngine({ database: file, workers: 0 })
      try {
        const explained = await engine.explain(DEMO_REQUEST)
        const result = await engine.query(DEMO_REQUEST)
        if (!result.ok || !explained.ok) {
          process.stderr.write(formatIssues(result.ok ? (explained.ok ? [] : explained.issues) : result.issues) + '\n')
          process.exitCode = 1
          return
        }
        process.stdout.write(`request:\n${JSON.stringify(DEMO_REQUEST, null, 2)}\n\n`)
        process.stdout.write(`sql:\n${explained.value.sql}\nparameters: ${JSON.stringify(explained.value.parameters)}\n\n`)
        process.stdout.write(`result:\n${JSON.stringify(result.value, null, 2)}\n\n`)
        process.stdout.write(`Next: page 2 with \`ventureql query --database ${file} --page 2 REQUEST.json\`;\n`
          + `the filter language is described in grammar-docs/language.md.\n`)
      } finally {
        await engine.close()
      }
    })
}
