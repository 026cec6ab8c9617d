/**
 * Page 1 of common listings through the HTTP handler (`createApp` on an inline engine over the
 * bench database), at each endpoint's own page size: the first call (which counts the total, on
 * a cache the previous runs may have filled) and the median of three more. A plan that goes wrong
 * for one filter and sort shows here as tens of milliseconds where the rest take one or two; stop
 * 26 found `/companies?country=USA` at 92 ms this way (bench/README.md).
 *
 *   BENCH_COMPANIES=1000000 npx tsx bench/listings.ts
 *
 * Compare checkouts by running it in a worktree of the code before, alternating.
 */
import { inlineBenchApp } from './support/inline-app.js'

const LISTINGS = [
  '/companies?country=USA', '/companies?stage=a|b', '/companies?stage=a|b&country=USA', '/companies?country=USA&sort=-employees',
  '/companies?country=USA&sort=employees', '/companies?country=USA&sort=-total_funding', '/companies?country=USA&sort=-momentum_score',
  '/companies?country=USA&sort=name', '/companies?employees=10~', '/companies?stage=a|b&employees=10~500', '/companies?country=USA&per_page=50',
  '/companies?country=USA&page=5', '/companies?country=GBR', '/companies?stage=c', '/companies?industries=Fintech',
  '/companies?country=USA&industries=Fintech', '/fundings?series=seed', '/fundings?funding_date_range=2020-01-01~2020-12-31',
]

const { app, headers, close } = await inlineBenchApp('bench/listings')
try {
  console.log('| listing | first call ms | then, median of 3 ms | total |')
  console.log('|---|---|---|---|')
  for (const path of LISTINGS) {
    const times: number[] = []
    let total: unknown
    for (let i = 0; i < 4; i++) {
      const started = performance.now()
      const response = await app.fetch(new Request(`http://localhost${path}`, { headers }))
      const body = (await response.json()) as { meta?: { total_record_count?: number } }
      times.push(performance.now() - started)
      if (response.status !== 200) throw new Error(`bench: ${path} answered ${response.status}`)
      total = body.meta?.total_record_count
    }
    const then = times.slice(1).sort((a, b) => a - b)[1]!
    console.log(`| \`${path.replace(/\|/g, '\\|')}\` | ${times[0]!.toFixed(1)} | ${then.toFixed(2)} | ${String(total)} |`)
  }
} finally {
  await close()
}
