/**
 * @module The `ventureql` command line. Each subcommand lives in its own file and registers
 * itself on the program; this file only assembles them. `main.ts` runs it.
 */
import { Command } from 'commander'
import { registerGenerate } from './generate.js'
import { registerImport } from './import.js'
import { registerDemo } from './demo.js'
import { registerServe } from './serve.js'
import { registerExplain } from './explain.js'
import { registerQuery } from './query.js'
import { registerExport } from './export.js'
import { registerKeys } from './keys.js'
import { registerCopy } from './copy.js'
import { registerSimilarIndex } from './similar-index.js'
import { registerBackup } from './backup.js'
import { packageVersion } from './version.js'

export function buildProgram(): Command {
  const program = new Command()
  program
    .name('ventureql')
    .description('Query engine and data API for company, investor and funding data.')
    .version(packageVersion(), '-V, --version', 'print the version of ventureql')
    .showHelpAfterError()
  // Subcommands register here, one file each: registerX(program).
  registerGenerate(program)
  registerImport(program)
  registerQuery(program)
  registerExport(program)
  registerExplain(program)
  registerDemo(program)
  registerServe(program)
  registerKeys(program)
  registerCopy(program)
  registerSimilarIndex(program)
  registerBackup(program)
  return program
}
