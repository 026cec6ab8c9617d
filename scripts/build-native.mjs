#!/usr/bin/env node
// Builds native/interrupt.c (the SQLite extension that lets a query over its time budget be
// stopped, see the file's header) into native/build/, against the SQLite headers better-sqlite3
// ships. Runs on `npm install` / `npm ci`. It never fails the install: without a C compiler the
// engine still enforces time budgets, by ending the worker thread once its statement returns
// (README, "Time budgets"), and says so once at start.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'native', 'interrupt.c')
const outDir = join(root, 'native', 'build')
const suffix = process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so'
const target = join(outDir, `vql_interrupt.${suffix}`)

function warn(message) {
  process.stderr.write(`ventureql: ${message}\n`)
}

try {
  const require = createRequire(import.meta.url)
  const headers = join(dirname(require.resolve('better-sqlite3/package.json')), 'deps', 'sqlite3')
  if (!existsSync(join(headers, 'sqlite3ext.h'))) throw new Error(`no sqlite3ext.h in ${headers}`)
  if (process.platform === 'win32') throw new Error('building the extension on Windows is not supported')
  if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) process.exit(0)
  mkdirSync(outDir, { recursive: true })
  const compiler = process.env.CC || 'cc'
  const shared = process.platform === 'darwin' ? ['-dynamiclib', '-undefined', 'dynamic_lookup'] : ['-shared']
  execFileSync(compiler, ['-O2', '-fPIC', ...shared, '-I', headers, source, '-o', target, '-lpthread'], { stdio: 'inherit' })
} catch (error) {
  warn(`could not build the query-interrupt extension (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); `
    + 'time budgets will end worker threads instead of interrupting statements')
}
