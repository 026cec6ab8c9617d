/**
 * Requests their clients abandon, as a type-ahead does: each of BENCH_USERS (default 50) users
 * types a word of four letters; every keystroke sends GET /search for the prefix so far and aborts
 * the previous request if it has not answered after BENCH_KEYSTROKE_MS (default 2); the last one is
 * awaited. Runs `ventureql serve` of a checkout on the bench database for BENCH_HTTP_SECONDS
 * (default 10) after a 2 s warm-up and reports words completed per second, requests sent and
 * abandoned, the server's CPU time per word, and the worker threads it replaced (threads ended and
 * started again, counted from /proc: every thread id seen beyond the first ones).
 *
 * The pool used to end a worker whose call was abandoned before the thread had started it (the
 * interrupt found nothing to stop) and start another: a thread, a connection and cold caches per
 * abandoned request that was on its way. Compare checkouts in alternating runs:
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   BENCH_CHECKOUT=/tmp/before BENCH_COMPANIES=1000000 npx tsx bench/abandoned-requests.ts
 *   BENCH_COMPANIES=1000000 npx tsx bench/abandoned-requests.ts
 */
import { benchCompanies, benchDatabaseFile } from './support/dataset.js'
import { benchKeyHeader, checkoutUnderTest, processCpuCentiseconds, startServeProcess, threadIds } from './support/serve-process.js'

const companies = benchCompanies()
const file = benchDatabaseFile(companies)
const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 10)
const users = Number(process.env.BENCH_USERS ?? 50)
const keystrokeMs = Number(process.env.BENCH_KEYSTROKE_MS ?? 2)
const headers = await benchKeyHeader('bench/abandoned-requests')

const checkout = checkoutUnderTest()
const server = await startServeProcess({ database: file, ...(checkout.cwd ? { cwd: checkout.cwd } : {}) })
const pid = server.child.pid!
const cpu = () => processCpuCentiseconds(pid)
const seenThreads = new Set<string>()
const sampleThreads = () => { for (const tid of threadIds(pid)) seenThreads.add(tid) }
sampleThreads()
const sampler = setInterval(sampleThreads, 20)

const WORDS = ['tech', 'data', 'labs', 'soft', 'bank', 'care', 'mark', 'star', 'nova', 'apex', 'peak', 'edge', 'core', 'fint', 'heal', 'robo']
const counts = { words: 0, sent: 0, abandoned: 0, failed: 0 }

async function search(prefix: string, signal: AbortSignal): Promise<void> {
  const response = await fetch(`${server.url}/search?term=${prefix}`, { headers, signal })
  await response.arrayBuffer()
  if (response.status !== 200) counts.failed++
}

/** One user typing words until `until`, abandoning every prefix still unanswered at the next keystroke. */
async function user(index: number, until: number): Promise<void> {
  for (let n = index; performance.now() < until; n += users) {
    const word = WORDS[n % WORDS.length]!
    for (let length = 1; length <= word.length; length++) {
      const controller = new AbortController()
      counts.sent++
      const pending = search(word.slice(0, length), controller.signal)
      if (length === word.length) {
        await pending.catch(() => counts.failed++)
        break
      }
      const answered = await Promise.race([pending.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), keystrokeMs))])
      if (!answered) {
        controller.abort()
        counts.abandoned++
        pending.catch(() => undefined)
      }
    }
    counts.words++
  }
}

try {
  await Promise.all(Array.from({ length: users }, (_, i) => user(i, performance.now() + 2_000)))
  const warm = { ...counts }
  const threadsBefore = seenThreads.size
  const cpu0 = cpu()
  const started = performance.now()
  await Promise.all(Array.from({ length: users }, (_, i) => user(i, started + seconds * 1000)))
  const elapsed = (performance.now() - started) / 1000
  const cpuCs = cpu() - cpu0
  sampleThreads()
  const words = counts.words - warm.words
  console.log(`${checkout.label}: ${users} users, a keystroke every ${keystrokeMs} ms`)
  console.log(`  ${(words / elapsed).toFixed(0)} words/s; ${counts.sent - warm.sent} requests sent, ${counts.abandoned - warm.abandoned} abandoned, ${counts.failed - warm.failed} failed`)
  console.log(`  server CPU ${((cpuCs * 10_000) / words).toFixed(0)} µs a word; worker threads replaced: ${seenThreads.size - threadsBefore} in the run (${threadsBefore} thread ids seen by its start, warm-up included)`)
} finally {
  clearInterval(sampler)
  await server.stop()
}
