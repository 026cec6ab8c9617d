/**
 * @module The similarity index's bench: `nice npx tsx bench/similar-index.ts [--size N | --database FILE] [--sample S] [--changed K] [--jobs J]`.
 * On a copy of the bench database (the build writes the index), in one run:
 * - a full build (`ventureql similar-index --reweigh --jobs J`, default 2 threads): wall time, this
 *   process's CPU time (its threads included) and the wall time of each phase;
 * - an import's kind of change (K companies take another's keywords), then the update: its time
 *   and how many companies it recomputed;
 * - the overlap of the index's 20 with the exhaustive search's (every posting read, nothing capped:
 *   bench/support/similar.ts) on S companies spread over the ids;
 * - similar companies from the index and searched live, each against a company detail, timed
 *   alternately on the same companies (medians of the ratios per company).
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadavg } from 'node:os'
import { buildSimilarIndex } from '../src/records/similar-index-build.js'
import { companyDetail } from '../src/records/company.js'
import { similarCompanies } from '../src/records/similar.js'
import { bumpDataVersionSync, openDatabase } from '../src/store/open.js'
import { benchDatabaseArg, numberArg } from './support/args.js'
import { exhaustiveSimilar, overlapWith, spreadCompanyIds } from './support/similar.js'

const size = numberArg('size', 100_000)
const sample = numberArg('sample', 20)
const changed = numberArg('changed', 100)
const jobs = numberArg('jobs', 2)
const source = benchDatabaseArg(size)
const file = join(tmpdir(), `vq-similar-index-bench-${size}-${process.pid}.db`)
copyFileSync(source, file)
if (existsSync(`${source}-state`)) copyFileSync(`${source}-state`, `${file}-state`)
const say = (line: string) => process.stderr.write(`${line}\n`)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

const vdb = openDatabase(file)
try {
  say(`similar-index bench: ${size} companies, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
  vdb.sqlite.exec('delete from similar_companies')
  let cpu = process.cpuUsage()
  let t = performance.now()
  const built = await buildSimilarIndex(vdb, { reweigh: true, jobs })
  let used = process.cpuUsage(cpu)
  const p = built.phases
  say(`build (${jobs} threads): ${(built.ms / 1000).toFixed(1)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU; ${built.computed} companies, ${built.sets} tag sets, ${built.buckets} buckets; reading ${(p.readMs / 1000).toFixed(1)} s, model ${(p.modelMs / 1000).toFixed(1)} s, answers ${(p.computeMs / 1000).toFixed(1)} s, writing ${(p.writeMs / 1000).toFixed(1)} s`)

  // An import's kind of change: K companies spread over the ids take another company's keywords.
  const ids = spreadCompanyIds(vdb.sqlite, size, changed)
  const retag = vdb.sqlite.transaction(() => {
    for (const id of ids) {
      vdb.sqlite.prepare('delete from company_keywords where company_id = ?').run(id)
      vdb.sqlite.prepare('insert into company_keywords (company_id, value) select ?, value from company_keywords where company_id = ?').run(id, id + 1)
    }
  })
  retag()
  bumpDataVersionSync(vdb.sqlite)
  cpu = process.cpuUsage()
  t = performance.now()
  const update = await buildSimilarIndex(vdb, { jobs })
  used = process.cpuUsage(cpu)
  say(`update after ${ids.length} companies retagged: ${((performance.now() - t) / 1000).toFixed(1)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU; ${update.computed} recomputed`)

  const picks = spreadCompanyIds(vdb.sqlite, size, sample, -1)
  const overlaps: number[] = []
  for (const id of picks) overlaps.push(overlapWith(await similarCompanies(vdb, id), await exhaustiveSimilar(vdb, id)))
  say(`overlap with the exhaustive 20 on ${overlaps.length} companies: mean ${(overlaps.reduce((a, b) => a + b, 0) / overlaps.length).toFixed(3)}, median ${median(overlaps).toFixed(2)}, min ${Math.min(...overlaps).toFixed(2)}`)

  const time = async (f: () => Promise<unknown>) => {
    const s = performance.now()
    await f()
    return performance.now() - s
  }
  const indexed: number[] = []
  const live: number[] = []
  for (const id of picks) {
    // Warm each once, then alternate.
    await companyDetail(vdb, id)
    await similarCompanies(vdb, id)
    await similarCompanies(vdb, id, { index: false })
    for (let round = 0; round < 3; round++) {
      const d1 = await time(() => companyDetail(vdb, id))
      const s1 = await time(() => similarCompanies(vdb, id))
      const d2 = await time(() => companyDetail(vdb, id))
      const s2 = await time(() => similarCompanies(vdb, id, { index: false }))
      indexed.push(s1 / d1)
      live.push(s2 / d2)
    }
  }
  say(`similar / detail, warm, median over ${indexed.length} timings: from the index ${median(indexed).toFixed(2)} (spread ${Math.min(...indexed).toFixed(2)}-${Math.max(...indexed).toFixed(2)}), searched live ${median(live).toFixed(1)} (spread ${Math.min(...live).toFixed(1)}-${Math.max(...live).toFixed(1)})`)
  say(`load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
} finally {
  await vdb.close()
  for (const suffix of ['', '-wal', '-shm', '-state', '-state-wal', '-state-shm']) rmSync(`${file}${suffix}`, { force: true })
}
