import { defineConfig } from 'tsup'

// Library entry points (the package root, ./http, and the unstable ./internal) are dual ESM/CJS
// with types; the CLI is ESM only and started by bin/ventureql.mjs. The pool's worker thread is
// its own ESM file (dist/worker.js), found by the bundles beside it through import.meta.url
// (shimmed in the CJS build).
export default defineConfig([
  {
    entry: { index: 'src/index.ts', http: 'src/http/index.ts', internal: 'src/internal.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    shims: true,
    target: 'node20',
  },
  {
    entry: { cli: 'src/cli/main.ts', worker: 'src/execute/pool/worker.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
])
