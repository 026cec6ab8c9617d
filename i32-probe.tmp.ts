import { performance } from 'node:perf_hooks'
import { datasets } from './src/catalog/index.js'
import { sqliteDialect } from './src/compile/index.js'
import { facetsInMemory } from './src/execute/facet-columns.js'
import { dataVersionSync } from './src/store/open.js'
import { openBenchDatabase } from './bench/support/dataset.js'
import { matchAll } from './src/ast/factory.js'
const vdb = openBenchDatabase()
const ctx = { db: vdb.db, dialect: sqliteDialect, dataVersion: dataVersionSync(vdb.sqlite), sqlite: vdb.sqlite }
for (const name of ['companies', 'fundings', 'investors']) {
  const d = (datasets as any)[name]
  for (const f of Object.values(d.fields) as any[]) {
    if (!f.facet) continue
    globalThis.gc?.()
    const m0 = process.memoryUsage()
    const t = performance.now()
    const r = await facetsInMemory(ctx, d, { kind: 'MatchAll' } as any, [f])
    globalThis.gc?.()
    const m1 = process.memoryUsage()
    console.log(name, f.name, (performance.now() - t).toFixed(0), 'ms', r ? 'held' : 'NOT', ((m1.arrayBuffers - m0.arrayBuffers + m1.heapUsed - m0.heapUsed) / 1e6).toFixed(2), 'MB')
  }
}
