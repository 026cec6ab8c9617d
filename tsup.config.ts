import { defineConfig } from 'tsup'

// Library entry points are dual ESM/CJS with types; the CLI is ESM only and started by bin/ventureql.mjs.
export default defineConfig([
  {
    entry: { index: 'src/index.ts', http: 'src/http/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
  },
  {
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
])
