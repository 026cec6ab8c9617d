#!/usr/bin/env node
/** @module Entry point of the `ventureql` binary (built to dist/cli.js). */
import { buildProgram } from './program.js'

buildProgram().parseAsync(process.argv).catch((error: unknown) => {
  console.error(`ventureql: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
