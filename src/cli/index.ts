#!/usr/bin/env node
/**
 * @module The `ventureql` command line. Each subcommand lives in its own file and registers
 * itself on the program; this file only assembles them.
 */
import { Command } from 'commander'

export function buildProgram(): Command {
  const program = new Command()
  program
    .name('ventureql')
    .description('Query engine and data API for company, investor and funding data.')
    .showHelpAfterError()
  // Subcommands register here, one file each.
  return program
}

const isMain = process.argv[1] !== undefined && /(?:cli(?:\.js|\/index\.ts)|ventureql(?:\.mjs)?)$/.test(process.argv[1])
if (isMain) {
  buildProgram().parseAsync(process.argv).catch((error: unknown) => {
    console.error(`ventureql: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  })
}
