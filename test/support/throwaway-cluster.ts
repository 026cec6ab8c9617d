/**
 * A PostgreSQL cluster of a test's own, on a free port in a temporary directory, for fault tests
 * that stop and restart the server (never the shared one at 5432). `initdb` refuses to run as root,
 * so the cluster belongs to the `postgres` user (runuser) when the tests run as root; its socket
 * lives in its own directory. About 1.5 s to create and start.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ThrowawayCluster {
  readonly url: string
  readonly port: number
  start(): void
  /** `immediate` kills the server as a crash would (connections drop mid-query). */
  stop(mode?: 'fast' | 'immediate'): void
  destroy(): void
}

function binDir(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).sort() : []
  const found = versions.reverse().map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'initdb')))
  if (!found) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (Debian package postgresql)')
  return found
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

export async function createThrowawayCluster(): Promise<ThrowawayCluster> {
  const bin = binDir()
  const asRoot = process.getuid?.() === 0
  const run = (tool: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' })
      : execFileSync(join(bin, tool), args, { stdio: 'pipe' })
  const dir = mkdtempSync(join(tmpdir(), 'vql-pg-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  const port = await freePort()
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  const cluster: ThrowawayCluster = {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => void run('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-w', '-l', join(dir, 'log'), 'start']),
    stop: (mode = 'fast') => void run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    destroy: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return cluster
}
