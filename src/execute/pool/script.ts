/**
 * @module Where the worker's code is. Built (dist/), it is `dist/worker.js` beside the bundle that
 * starts it. From the TypeScript sources (tests, `npm run ventureql`, benchmarks) the worker is
 * `worker.ts`, which Node cannot load by itself: a two-line bootstrap registers tsx's loader in the
 * worker thread first (tsx is a development dependency; a published package never takes this path).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { WorkerOptions } from 'node:worker_threads'

export interface WorkerScript {
  readonly filename: string | URL
  readonly options: WorkerOptions
  /** Merged into the worker's `workerData`. */
  readonly workerData: Record<string, unknown>
}

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads')
import(workerData.tsxApi).then((tsx) => { tsx.register(); return import(workerData.entry) })
`

let cached: WorkerScript | undefined

export function workerScript(): WorkerScript {
  return (cached ??= scriptBeside(import.meta.url, './worker.ts', './worker.js'))
}

/**
 * A worker script beside the module at `here` (its `import.meta.url`): `source` from the
 * TypeScript sources (through the tsx bootstrap), `built` beside the bundle (an entry of
 * tsup.config.ts). The similarity index's build starts its threads this way too (records/similar/threads.ts).
 */
export function scriptBeside(here: string, source: string, built: string): WorkerScript {
  if (/\.[cm]?ts$/.test(here)) {
    const tsxApi = pathToFileURL(esmEntry(createRequire(here).resolve('tsx/package.json'), './esm/api')).href
    return { filename: BOOTSTRAP, options: { eval: true }, workerData: { tsxApi, entry: new URL(source, here).href } }
  }
  return { filename: new URL(built, here), options: {}, workerData: {} }
}

/** The ESM file a package exports under `subpath` (require.resolve would give the CommonJS one). */
function esmEntry(manifestPath: string, subpath: string): string {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> }
  const target = manifest.exports[subpath]?.import.default
  if (!target) throw new Error(`execute/pool: ${manifestPath} exports no ESM entry for ${subpath}`)
  return join(dirname(manifestPath), target)
}
