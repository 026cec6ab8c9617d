/**
 * Runs the `ventureql` commander program in-process, capturing what it writes to stdout and stderr
 * and the exit code it sets. With `exitOverride`, commander throws on a usage error instead of
 * exiting: that is exit code 1 (or commander's own code) here, unless `rethrow` asks for the error.
 */
import { vi } from 'vitest'
import { buildProgram } from '../../src/cli/program.js'

export interface CliRun {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
}

export async function runCli(args: readonly string[], options: { cwd?: string; rethrow?: boolean } = {}): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true))
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
  const previousCwd = process.cwd()
  process.exitCode = 0
  let exitCode = 0
  try {
    if (options.cwd) process.chdir(options.cwd)
    await buildProgram().exitOverride().parseAsync(['node', 'ventureql', ...args])
    exitCode = Number(process.exitCode ?? 0)
  } catch (error) {
    if (options.rethrow) throw error
    exitCode = Number((error as { exitCode?: number }).exitCode ?? 1)
  } finally {
    process.chdir(previousCwd)
    out.mockRestore()
    err.mockRestore()
    process.exitCode = 0
  }
  return { stdout, stderr, exitCode }
}
