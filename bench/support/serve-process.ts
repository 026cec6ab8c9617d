/**
 * @module `ventureql serve` as a separate process for load benchmarks: the load generator must not
 * share the server's event loop or cores' scheduling with it. Builds the checkout's dist/ (tsup)
 * once per benchmark process and runs `bin/ventureql.mjs serve`, so a benchmark always measures
 * the current code, as `npm start` runs it. Also
 * samples the server's memory from /proc: anonymous memory (its own heap and buffers) apart from
 * file-backed pages (the database's memory map).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { createApiKey } from '../../src/store/api-keys.js'
import { openBenchDatabase } from './dataset.js'

export interface ServeProcess {
  readonly url: string
  readonly child: ChildProcess
  /** Resident memory now, in MB: anonymous (heap, buffers) and file-backed (the database's map). */
  memory(): { readonly anonMb: number; readonly fileMb: number } | undefined
  stop(): Promise<void>
}

/** Starts a server on a free port over plain HTTP (loopback) and resolves once it prints its URL. */
export async function startServeProcess(options: { database: string; args?: readonly string[]; cwd?: string; nodeArgs?: readonly string[] }): Promise<ServeProcess> {
  const cwd = options.cwd ?? process.cwd()
  buildOnce(cwd)
  // The load benches send many clients' traffic under one key: the per-key limits (fairness.md)
  // would answer most of it 429, so they are lifted unless a bench sets them (a later flag wins).
  const manyClients = ['--tenant-concurrency', '1000', '--tenant-backlog', '100000', '--tenant-allowance', '0']
  const args = ['bin/ventureql.mjs', 'serve', '--http', '--port', '0', '--database', options.database, ...manyClients, ...(options.args ?? [])]
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => { out += d })
  child.stderr!.on('data', (d) => { err += d })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const deadline = Date.now() + 120_000
  let url: string | undefined
  while (!(url = /^ventureql: serving (http:\/\/\S+)/m.exec(out)?.[1])) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`ventureql serve did not start:\n${out}\n${err}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    child,
    memory() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
        const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
        return { anonMb: kb('RssAnon') / 1024, fileMb: kb('RssFile') / 1024 }
      } catch {
        return undefined
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      await exited
      clearTimeout(killer)
    },
  }
}

const built = new Set<string>()

/** Builds dist/ from the sources of the checkout at `cwd` (tsup), once per benchmark process. */
function buildOnce(cwd: string): void {
  const dir = resolve(cwd)
  if (built.has(dir)) return
  process.stderr.write(`bench: building ${dir} (tsup) for the server ...\n`)
  execFileSync('npx', ['tsup'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
  built.add(dir)
}

/**
 * A full-plan key on the bench database with a quota no load reaches, for load benchmarks against
 * `serve`: the header that presents it. Created before the server opens the file.
 */
export async function benchKeyHeader(label: string): Promise<{ authorization: string }> {
  const vdb = openBenchDatabase()
  try {
    const made = await createApiKey(vdb, { plan: 'full', quota: 2_000_000_000, period: 'day', label })
    if (!made.ok) throw new Error('bench: could not create a key')
    return { authorization: `Bearer ${made.value.key}` }
  } finally {
    await vdb.close()
  }
}

/** Centiseconds of CPU (user + system) process `pid` has used, all its threads together (/proc). */
export function processCpuCentiseconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12])
}

/**
 * The checkout whose server a before/after bench starts: `BENCH_CHECKOUT` (a worktree of the code
 * before, its node_modules linked), else this one. `label` names it in the output.
 */
export function checkoutUnderTest(): { readonly cwd?: string; readonly label: string } {
  const other = process.env.BENCH_CHECKOUT
  return other ? { cwd: other, label: other } : { label: 'this checkout' }
}

/** The ids of a process's threads now (/proc); a thread that ends meanwhile is simply missing. */
export function threadIds(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`)
}
