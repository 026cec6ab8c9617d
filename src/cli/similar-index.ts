/**
 * @module `ventureql similar-index --database FILE|URL [--full] [--reweigh]`: builds or updates the
 * similarity index (records/similar-index-build.ts), every company's similar companies computed
 * ahead, so that GET /companies/:id/similar reads its answer instead of searching. To be run again
 * after every import: it then recomputes only the companies the import changed and those whose
 * answer they enter or leave (an ingest moves the data version, and the search answers until the
 * index is updated).
 */
import type { Command } from 'commander'
import { buildSimilarIndex, type SimilarIndexSummary } from '../records/similar-index-build.js'
import { openTarget } from '../store/open-target.js'
import { DEFAULT_DATABASE, DEFAULT_DATABASE_HELP } from './keys.js'

export interface SimilarIndexCommandOptions {
  readonly database: string
  readonly schema?: string
  /** Recompute every company. */
  readonly full?: boolean
  /** Take new tag weights from the data (recomputes every company). */
  readonly reweigh?: boolean
}

/** Builds or updates the index and says what it did. */
export async function similarIndexCommand(opts: SimilarIndexCommandOptions, log: (line: string) => void): Promise<SimilarIndexSummary> {
  const vdb = await openTarget(opts.database, { schema: opts.schema })
  try {
    let reported = 0
    const summary = await buildSimilarIndex(vdb, {
      full: opts.full === true,
      reweigh: opts.reweigh === true,
      onProgress: ({ done, total }) => {
        // About every 5%, and the end.
        if (done === total || done - reported >= Math.max(1, Math.floor(total / 20))) {
          reported = done
          log(`similar-index: ${done} / ${total} companies computed`)
        }
      },
    })
    log(`similar-index: ${summary.computed} computed, ${summary.current} already current${summary.deleted > 0 ? `, ${summary.deleted} deleted` : ''}, of ${summary.companies} companies at data version ${summary.dataVersion} in ${(summary.ms / 1000).toFixed(1)} s${summary.reweighed ? ' (new tag weights)' : ''}${summary.restarts > 0 ? ` (the data changed ${summary.restarts} time(s) during the build: started over)` : ''}`)
    return summary
  } finally {
    await vdb.close()
  }
}

export function registerSimilarIndex(program: Command): void {
  program.command('similar-index')
    .description('Build or update the similarity index: every company\'s similar companies computed ahead (run again after an import).')
    .option('--database <target>', `SQLite database file or postgres:// URL (${DEFAULT_DATABASE_HELP})`, DEFAULT_DATABASE)
    .option('--schema <name>', 'PostgreSQL schema holding the tables')
    .option('--full', 'recompute every company, not only those the data changed since')
    .option('--reweigh', 'take new tag weights from the data (recomputes every company)')
    .action(async (opts: SimilarIndexCommandOptions) => {
      await similarIndexCommand(opts, (line) => process.stderr.write(`${line}\n`))
    })
}
