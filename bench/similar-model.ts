/**
 * @module The similarity index's model alone, read-only on the bench database:
 * `nice npx tsx bench/similar-model.ts [--size N | --database FILE] [--sets K] [--sample S]`.
 * - CPU to read the data and to build the model (its distinct tag sets and LSH buckets);
 * - CPU a tag set to answer K consecutive sets in the build's order (candidates and every member's
 *   answer), and the candidates a set;
 * - the overlap of the answers' 20 with the exact 20 (every tag set scored with the same score,
 *   `exhaustiveNeighbours`) on S companies spread over the ids (target mean >= 0.9).
 * Nothing is written: the build's own cost, writes included, is bench/similar-index.ts's.
 */
import { loadavg } from 'node:os'
import { recordSession } from '../src/records/session.js'
import { currentWeights, loadModelInput } from '../src/records/similar/load.js'
import { SimilarityModel } from '../src/records/similar/lsh.js'
import { openDatabase } from '../src/store/open.js'
import { benchDatabaseArg, numberArg } from './support/args.js'

const size = numberArg('size', 100_000)
const sets = numberArg('sets', 5_000)
const sample = numberArg('sample', 100)
const file = benchDatabaseArg(size)
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const say = (line: string) => process.stderr.write(`${line}\n`)

const vdb = openDatabase(file, { readonly: true })
try {
  say(`similar-model bench: ${file}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
  const s = recordSession(vdb)
  let t = cpu()
  const { input } = await loadModelInput(s, await currentWeights(s), 'bench')
  say(`read: ${(cpu() - t).toFixed(1)} s CPU; ${input.ids.length} companies, ${input.weights.length} tags`)
  t = cpu()
  const model = new SimilarityModel(input)
  say(`model: ${(cpu() - t).toFixed(1)} s CPU; ${model.sets} tag sets, ${model.bands} bands of ${model.rows} rows, ${model.buckets} buckets`)

  const from = Math.floor(model.sets / 3)
  const to = Math.min(model.sets, from + sets)
  let candidates = 0
  t = cpu()
  for (let o = from; o < to; o++) {
    const set = model.order[o]!
    const found = model.candidates(set)
    candidates += found.length
    for (let m = model.memberStart[set]!; m < model.memberStart[set + 1]!; m++) model.neighboursInto(model.members[m]!, 20, found)
  }
  const perSet = (cpu() - t) * 1000 / (to - from)
  say(`answers: ${perSet.toFixed(3)} ms CPU a tag set over ${to - from} consecutive sets (${Math.round(candidates / (to - from))} candidates a set); all ${model.sets} sets at that rate: ${(perSet * model.sets / 1000).toFixed(0)} s CPU`)

  const overlaps: number[] = []
  for (let i = 0; i < sample; i++) {
    const c = Math.floor((i * input.ids.length) / sample)
    const exact = model.exhaustiveNeighbours(c, 20)
    const found = new Set(model.neighbours(c, 20, model.candidates(model.setOf[c]!)).map(([id]) => id))
    if (exact.length > 0) overlaps.push(exact.filter(([id]) => found.has(id)).length / exact.length)
  }
  overlaps.sort((a, b) => a - b)
  say(`overlap with the exact 20 on ${overlaps.length} companies: mean ${(overlaps.reduce((a, b) => a + b, 0) / overlaps.length).toFixed(3)}, median ${overlaps[Math.floor(overlaps.length / 2)]!.toFixed(2)}, min ${overlaps[0]!.toFixed(2)}`)
} finally {
  await vdb.close()
}
