/**
 * What a request costs in CPU before any thread hop or socket: the HTTP handler (`createApp`) on an
 * inline engine over the bench database, in this process, against a bare Hono route returning
 * constant JSON. The suite's HTTP target (detail and search at >= 60% of the bare route's
 * requests/s over sockets) asks each request to cost at most about 1.7x the bare route's; this
 * shows where the detail and the search stand without the server's worker hop and sockets:
 *
 * - `bare route`: Hono, a Request, `c.json` of a constant, the body read;
 * - `key check alone`: GET /ratelimit/usage, the built-in key check (the key's hash looked up, its
 *   quota read) and a one-element answer; every route behind the built-in keys does at least this;
 * - `detail, records`: `engine.records.companyDetail` alone, the lookup's statements;
 * - `detail, handler`: GET /companies/:id, the key check and quota count, the lookup, the view, the
 *   ETag and the JSON;
 * - `search, records` and `search, handler`: the same for 1-4 letter terms.
 *
 * Rounds interleave the six; each reports its median over the rounds of CPU time (user + system,
 * the whole process) and wall time per request. The ids and terms are the suite's load
 * (`support/http-requests.ts`).
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/http-cost.ts
 */
import { benchCompanies } from './support/dataset.js'
import { inlineBenchApp } from './support/inline-app.js'
import { bareApp } from './suite/bare-app.js'
import { loadIds, loadTerms } from './support/http-requests.js'

const companies = benchCompanies()
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const perRound = Number(process.env.BENCH_REQUESTS ?? 4000)

const { engine, app, headers, close } = await inlineBenchApp('bench/http-cost')
// The suite's bare route (served over sockets there by suite/bare-server.ts).
const bare = bareApp()

const ids = loadIds(companies)
const terms = loadTerms()
const fetchText = async (handler: { fetch(r: Request): Response | Promise<Response> }, path: string) => {
  const response = await handler.fetch(new Request(`http://localhost${path}`, { headers }))
  if (response.status !== 200) throw new Error(`bench: ${path} answered ${response.status}`)
  return response.text()
}
const variants: [string, (i: number) => Promise<unknown>][] = [
  ['bare route', () => fetchText(bare, '/bare')],
  ['key check alone (GET /ratelimit/usage)', () => fetchText(app, '/ratelimit/usage')],
  ['detail, records', (i) => engine.records.companyDetail(ids[i % ids.length]!)],
  ['detail, handler (GET /companies/:id)', (i) => fetchText(app, `/companies/${ids[i % ids.length]}`)],
  ['search, records', (i) => engine.records.search({ term: terms[i % terms.length]!, objectTypes: ['company', 'investor'], limit: 10 })],
  ['search, handler (GET /search?term=)', (i) => fetchText(app, `/search?term=${terms[i % terms.length]}`)],
]

const cpu = new Map<string, number[]>(variants.map(([name]) => [name, []]))
const wall = new Map<string, number[]>(variants.map(([name]) => [name, []]))
try {
  for (const [, run] of variants) for (let i = 0; i < perRound / 2; i++) await run(i) // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of variants) {
      const [t0, c0] = [performance.now(), process.cpuUsage()]
      for (let i = 0; i < perRound; i++) await run(i)
      const used = process.cpuUsage(c0)
      cpu.get(name)!.push((used.user + used.system) / perRound)
      wall.get(name)!.push(((performance.now() - t0) * 1000) / perRound)
    }
  }
} finally {
  await close()
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const bareCpu = median(cpu.get('bare route')!)
console.log(`${companies.toLocaleString('en-US')} companies, ${rounds} rounds of ${perRound} requests; µs a request, median over the rounds\n`)
console.log('| path | CPU µs | wall µs | CPU / bare route |')
console.log('|---|---|---|---|')
for (const [name] of variants) {
  const c = median(cpu.get(name)!)
  console.log(`| ${name} | ${c.toFixed(1)} | ${median(wall.get(name)!).toFixed(1)} | ${(c / bareCpu).toFixed(1)} |`)
}
