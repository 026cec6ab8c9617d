/**
 * @module The command-line arguments of the standalone bench scripts (bench/similar-index.ts,
 * bench/similar-model.ts): `--name N` numbers and the database, `--database FILE` or the bench
 * database of `--size N` companies.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { BENCH_DIR } from './dataset.js'

/** `--name N`: a positive whole number, or `fallback` when the option is absent. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  if (i < 0) return fallback
  const raw = process.argv[i + 1]
  const n = Number(raw)
  if (raw === undefined || !Number.isSafeInteger(n) || n < 1) throw new Error(`bench: --${name} must be a whole number from 1, got ${JSON.stringify(raw)}`)
  return n
}

/** `--database FILE`, or the bench database of `size` companies; it must exist. */
export function benchDatabaseArg(size: number): string {
  const named = process.argv.indexOf('--database')
  const file = named >= 0 ? process.argv[named + 1] : join(BENCH_DIR, `companies-${size}.db`)
  if (file === undefined) throw new Error('bench: --database needs a file')
  if (!existsSync(file)) throw new Error(`bench: ${file} does not exist (npm run bench -- --size ${size} generates the bench database)`)
  return file
}
