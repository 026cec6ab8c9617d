/**
 * `serve`'s configuration (issue 11, item 4): every flag also settable from an environment
 * variable (the flag wins), listed in one table of grammar-docs/guides/serving.md; `ventureql --version`.
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { Command } from 'commander'
import { buildProgram } from '../../src/cli/program.js'
import { SERVE_COMMAND_LINE_ONLY, SERVE_ENVIRONMENT, serveOptionsOf, type ServeOptions } from '../../src/cli/serve.js'

const saved = new Map<string, string | undefined>()
function setEnv(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!saved.has(name)) saved.set(name, process.env[name])
    process.env[name] = value
  }
}
afterEach(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  saved.clear()
})

function quietProgram(): { program: Command; serve: Command; output: string[] } {
  const output: string[] = []
  const program = buildProgram()
  program.exitOverride().configureOutput({ writeOut: (s) => output.push(s), writeErr: (s) => output.push(s) })
  const serve = program.commands.find((c) => c.name() === 'serve')!
  serve.exitOverride().configureOutput({ writeOut: (s) => output.push(s), writeErr: (s) => output.push(s) })
  return { program, serve, output }
}

/** What `ventureql serve ARGS` would start with, without starting it. */
async function serveOptions(args: string[]): Promise<ServeOptions> {
  const { program, serve } = quietProgram()
  let captured: ServeOptions | undefined
  serve.action(() => { captured = serveOptionsOf(serve) })
  await program.parseAsync(['serve', ...args], { from: 'user' })
  return captured!
}

describe('ventureql --version', () => {
  it('prints the version of package.json', async () => {
    const { program, output } = quietProgram()
    const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
    await expect(program.parseAsync(['--version'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.version' })
    expect(output.join('')).toBe(`${version}\n`)
  })
})

describe('serve flags from the environment', () => {
  it('every flag of serve but the command-line-only ones has a variable, and the table names only flags serve has', () => {
    const { serve } = quietProgram()
    const flags = serve.options.map((o) => o.long!).filter((f) => f !== '--help' && !SERVE_COMMAND_LINE_ONLY.includes(f))
    expect(flags.sort()).toEqual(Object.keys(SERVE_ENVIRONMENT).sort())
    for (const option of serve.options) {
      if (option.long === '--help') continue
      // A switch that discards state is never set by a variable left in a unit file.
      if (SERVE_COMMAND_LINE_ONLY.includes(option.long!)) {
        expect(option.envVar, option.long).toBeUndefined()
        continue
      }
      expect(option.envVar, option.long).toBe(SERVE_ENVIRONMENT[option.long as keyof typeof SERVE_ENVIRONMENT])
    }
  })

  it('the serving guide lists every flag with its variable in one table', () => {
    const guide = readFileSync(new URL('../../grammar-docs/guides/serving.md', import.meta.url), 'utf8')
    const rows = guide.split('\n').filter((l) => /^\| `--[a-z-]+.*` \| `VENTUREQL_[A-Z_]+` \|/.test(l))
    const listed = new Map(rows.map((r) => {
      const m = /^\| `(--[a-z-]+)[^`]*` \| `(VENTUREQL_[A-Z_]+)` \|/.exec(r)!
      return [m[1]!, m[2]!] as const
    }))
    expect(Object.fromEntries(listed)).toEqual({ ...SERVE_ENVIRONMENT })
  })

  it('takes values from the environment; a flag on the command line wins', async () => {
    setEnv({
      VENTUREQL_PORT: '9001', VENTUREQL_HOST: '0.0.0.0', VENTUREQL_DATA_DIR: '/srv/vq', VENTUREQL_COMPANIES: '77',
      VENTUREQL_QUERY_TIMEOUT: '250', VENTUREQL_SHUTDOWN_TIMEOUT: '1500', VENTUREQL_WORKERS: '3',
      VENTUREQL_BASE_URL: 'https://api.example.com', VENTUREQL_LOG_FORMAT: 'json',
      VENTUREQL_CORS: 'https://a.example, https://b.example', VENTUREQL_HTTP: 'true', VENTUREQL_METRICS: '1', VENTUREQL_ACCESS_LOG: 'on',
    })
    const fromEnv = await serveOptions([])
    expect(fromEnv).toMatchObject({
      port: 9001, host: '0.0.0.0', dataDir: '/srv/vq', companies: 77, queryTimeout: 250, shutdownTimeoutMs: 1500, workers: 3,
      baseUrl: 'https://api.example.com', logFormat: 'json', cors: ['https://a.example', 'https://b.example'],
      http: true, metrics: true, accessLog: true,
    })
    const flagged = await serveOptions(['--port', '9002', '--query-timeout', '0', '--cors', 'https://c.example'])
    expect(flagged).toMatchObject({ port: 9002, queryTimeout: 0, cors: ['https://c.example'], host: '0.0.0.0' })
  })

  it('reads switches as switches: 0/false/no/off leave them off (not merely "set")', async () => {
    setEnv({ VENTUREQL_HTTP: '0', VENTUREQL_METRICS: 'false', VENTUREQL_ACCESS_LOG: 'off' })
    expect(await serveOptions([])).toMatchObject({ http: false, metrics: false, accessLog: false })
    // The flag still turns it on.
    expect(await serveOptions(['--metrics'])).toMatchObject({ metrics: true })
    setEnv({ VENTUREQL_HTTP: 'maybe' })
    await expect(serveOptions([])).rejects.toThrow(/VENTUREQL_HTTP is a switch/)
  })

  it('refuses a bad value from the environment naming the variable', async () => {
    setEnv({ VENTUREQL_PORT: 'eighty' })
    await expect(serveOptions([])).rejects.toThrow(/VENTUREQL_PORT/)
    setEnv({ VENTUREQL_PORT: '8443', VENTUREQL_LOG_FORMAT: 'xml' })
    await expect(serveOptions([])).rejects.toThrow(/VENTUREQL_LOG_FORMAT|xml/)
  })

  it('the database URL keeps coming from VENTUREQL_DATABASE_URL; an empty one is no value', async () => {
    setEnv({ VENTUREQL_DATABASE_URL: 'postgres://u@db:5432/v' })
    expect((await serveOptions([])).database).toBe('postgres://u@db:5432/v')
    setEnv({ VENTUREQL_DATABASE_URL: '' })
    expect((await serveOptions([])).database).toBeUndefined()
  })
})
