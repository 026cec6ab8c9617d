/**
 * @module Measures what a signal does to requests in flight: starts `ventureql serve` as a child
 * process, opens `--count` requests at once on fresh connections, sends SIGTERM once
 * `--signal-after` connections are set up, and prints per run how the requests ended and how long
 * the exit took. Works against any version of the server (it only uses the command line).
 *
 *   npx tsx scripts/shutdown-probe.ts [--runs 5] [--count 50] [--signal-after 10] [--http]
 *     [--companies 5000 | --database FILE (a copy without keys is served per run)] [--path '/companies?stage=a|b'] [-- extra serve flags, e.g. --shutdown-timeout 2000]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startServeChild, tally, volleyWithSignal } from '../test/http/support/serve-child.js'

const root = resolve(fileURLToPath(import.meta.url), '../..')
const argv = process.argv.slice(2)
const dash = argv.indexOf('--')
const own = dash < 0 ? argv : argv.slice(0, dash)
const serveArgs = dash < 0 ? [] : argv.slice(dash + 1)
const flag = (name: string, fallback: string): string => {
  const at = own.indexOf(name)
  return at < 0 ? fallback : own[at + 1] ?? fallback
}
const runs = Number(flag('--runs', '5'))
const count = Number(flag('--count', '50'))
const signalAfter = Number(flag('--signal-after', '10'))
const companies = flag('--companies', '5000')
const path = flag('--path', '/companies?stage=a|b')
const http = own.includes('--http')

const dir = mkdtempSync(join(tmpdir(), 'vql-shutdown-probe-'))
try {
  const given = flag('--database', '')
  const template = given ? resolve(given) : join(dir, 'template.db')
  if (!given) execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'generate', '--companies', companies, '--out', template], { cwd: root, stdio: 'ignore' })
  console.log(`${count} requests (GET ${path}) on fresh connections over ${http ? 'HTTP' : 'HTTPS'}, SIGTERM once ${signalAfter} are connected; ${given || `${companies} companies`}; serve ${serveArgs.join(' ') || '(default flags)'}`)
  for (let run = 1; run <= runs; run++) {
    // A copy without keys per run (the data file alone, started with --new-state), so that serve creates and prints a full key.
    const database = join(dir, `run-${run}.db`)
    copyFileSync(template, database)
    const dataDir = join(dir, `data-${run}`)
    const server = await startServeChild({ cwd: root, database, dataDir, http, args: [...serveArgs, '--new-state'] })
    const volley = await volleyWithSignal(server, { count, path, signalAfterConnected: signalAfter })
    const exit = await server.exited
    const failed = volley.outcomes.filter((o) => o.status === undefined).length
    console.log(`run ${run}: ${tally(volley.outcomes)}; failed ${failed}/${count}; at the signal ${volley.atSignal.connected} connected, ${volley.atSignal.answered} answered; `
      + `exit ${exit.code} after ${exit.at - volley.signalledAt} ms`)
    const stopped = /^ventureql: stopped.*$/m.exec(server.stderr())?.[0]
    if (stopped) console.log(`  server: ${stopped}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
