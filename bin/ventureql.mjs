#!/usr/bin/env node
// The published CLI runs the built bundle; `npm ci` / `npm install` build it through `prepare`.
import('../dist/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    console.error('ventureql: dist/cli.js is missing; run `npm run build` first (npm ci does it for you).')
    process.exit(1)
  }
  throw error
})
