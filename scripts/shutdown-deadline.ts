/**
 * SIGTERM to `ventureql serve --http` while slow queries are in flight: how long after the signal
 * the process exits, against its --shutdown-timeout. Each of <in flight> clients keeps one
 * `foreign` chain of LEVELS (default 5) levels ending in a condition every investor meets in flight;
 * the signal comes 3 s in. The database is copied first (the server writes keys and caches).
 *
 *   LEVELS=8 npx tsx scripts/shutdown-deadline.ts .ventureql/bench/companies-100000.db 10000 8 0
 *
 * Arguments: database, --shutdown-timeout, clients, --query-timeout (0: none, so the queries outlast
 * the shutdown). CLI=dist/cli.js runs the built CLI instead of the sources.
 */
import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'node:http'
import { startServeChild } from '../test/http/support/serve-child.js'
import { spawn } from 'node:child_process'
import { broadChainRequest } from '../bench/support/foreign-chains.js'
const [source, shutdownTimeout, inFlight, queryTimeout] = process.argv.slice(2)
const dir = mkdtempSync(join(tmpdir(), 'vql-sd-'))
const database = join(dir, 'v.db')
copyFileSync(source!, database)
const server = process.env.CLI ? await startDist(process.env.CLI) : await startServeChild({ cwd: process.cwd(), database, dataDir: dir, http: true,
  args: ['--shutdown-timeout', shutdownTimeout!, ...(queryTimeout ? ['--query-timeout', queryTimeout] : [])] })
const body = JSON.stringify(broadChainRequest(Number(process.env.LEVELS ?? 5)))
let stop = false
const statuses: number[] = []
const send = (): Promise<void> => new Promise((resolve) => {
  const req = request(`${server.url}/queries`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' } }, (res) => {
    res.resume(); res.on('end', () => { statuses.push(res.statusCode!); resolve() })
  })
  req.on('error', () => { statuses.push(0); resolve() })
  req.end(body)
})
// Keeps `inFlight` slow requests going until the server stops taking them.
const loops = Array.from({ length: Number(inFlight) }, async () => { while (!stop) await send() })
await new Promise((r) => setTimeout(r, 3000))
const signalled = Date.now()
server.child.kill('SIGTERM')
const exit = await server.exited
stop = true
console.log(`exit ${exit.code} ${exit.at - signalled} ms after SIGTERM (--shutdown-timeout ${shutdownTimeout}); statuses ${JSON.stringify(statuses.reduce((m: Record<number, number>, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {}))}`)
console.log(server.stderr().split('\n').filter((l) => /SIGTERM|stopped|FATAL/.test(l)).join('\n'))
await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 2000))])
process.exit(0)

async function startDist(cli: string) {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--database', database, '--data-dir', dir, '--http', '--shutdown-timeout', shutdownTimeout!, ...(queryTimeout ? ['--query-timeout', queryTimeout] : [])], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''; let err = ''
  child.stdout!.on('data', (d) => { out += d }); child.stderr!.on('data', (d) => { err += d })
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })))
  while (!/^full key: \S+$/m.test(out)) { if (child.exitCode !== null) throw new Error(err); await new Promise((r) => setTimeout(r, 25)) }
  return { child, url: /^ventureql: serving (\S+)/m.exec(out)![1]!, key: /^full key: (\S+)$/m.exec(out)![1]!, stderr: () => err, exited }
}
