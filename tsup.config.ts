import { defineConfig } from 'tsup'

// Library entry points (the package root, ./http, ./testing and the unstable ./internal) are dual
// ESM/CJS with types; fast-check, a peer dependency, stays an import of ./testing's bundles; the CLI and the pool's worker thread are ESM only. The ESM build splits shared code
// into chunks, so the CLI (started by bin/ventureql.mjs) and the worker (found by the bundles
// beside it through import.meta.url, shimmed in the CJS build) reuse the library's chunks instead
// of carrying a copy each. No source maps are shipped: with their embedded sources they were most
// of the tarball, and test/package/consumer.test.ts holds the unpacked package to a size budget.
export default defineConfig([
  {
    entry: { index: 'src/index.ts', http: 'src/http/index.ts', internal: 'src/internal.ts', testing: 'src/testing/index.ts', cli: 'src/cli/main.ts', worker: 'src/execute/pool/worker.ts', 'similar-worker': 'src/records/similar/worker.ts' },
    format: ['esm'],
    dts: { entry: { index: 'src/index.ts', http: 'src/http/index.ts', internal: 'src/internal.ts', testing: 'src/testing/index.ts' } },
    clean: true,
    sourcemap: false,
    target: 'node20',
  },
  {
    entry: { index: 'src/index.ts', http: 'src/http/index.ts', internal: 'src/internal.ts', testing: 'src/testing/index.ts' },
    format: ['cjs'],
    // esbuild splits ESM only; tsup's CJS splitting shares the entries' code the same way.
    splitting: true,
    dts: true,
    sourcemap: false,
    shims: true,
    target: 'node20',
  },
])
