/**
 * A separate OS process for the quota concurrency test (test/http/auth-quota.test.ts): opens the
 * database file with its own engine and app, fires `count` requests with one key at once, and
 * prints the status codes as a JSON array on stdout. Run with `node --import tsx`.
 *
 * argv: database file, key, count, start (ms since epoch to wait for, so both processes fire together)
 */
import { createEngine } from '../../../src/engine.js'
import { createApp } from '../../../src/http/app.js'
import { HARNESS_NOW } from '../harness.js'

const [database, key, countText, startText] = process.argv.slice(2)
const engine = createEngine({ database: database! })
const app = createApp(engine, { clock: () => HARNESS_NOW })
const wait = Number(startText) - Date.now()
if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
const statuses = await Promise.all(
  Array.from({ length: Number(countText) }, () =>
    app.fetch(new Request('https://api.test/queries/no-such-query', { headers: { authorization: `Bearer ${key}` } })).then((r) => r.status)),
)
await engine.close()
process.stdout.write(`${JSON.stringify(statuses)}\n`)
