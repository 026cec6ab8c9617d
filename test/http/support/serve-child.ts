/**
 * `ventureql serve` as a child process, and a volley of requests on fresh connections with a signal
 * sent mid-flight: shared by test/http/shutdown.test.ts and scripts/shutdown-probe.ts (which prints
 * how many requests were answered, refused or reset). Only the command line is used, so the probe
 * measures any version of the server the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request as httpRequest, type ClientRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'

export interface ServeChild {
  readonly child: ChildProcess
  readonly url: string
  readonly key: string
  /** The certificate to trust (HTTPS only). */
  readonly ca: string | undefined
  stderr(): string
  /** Resolves with the exit code (null when killed by a signal) and the time it happened. */
  readonly exited: Promise<{ code: number | null; at: number }>
}

/**
 * Starts `ventureql serve --port 0` on `database` (its first run creates and prints the keys) and
 * resolves once the URL and the full key are printed. `cwd` is the repository root.
 */
export async function startServeChild(options: {
  cwd: string; database: string; dataDir: string; http?: boolean; args?: readonly string[]
}): Promise<ServeChild> {
  const args = ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--database', options.database, '--data-dir', options.dataDir,
    ...(options.http ? ['--http'] : []), ...(options.args ?? [])]
  const child = spawn(process.execPath, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => { out += d })
  child.stderr!.on('data', (d) => { err += d })
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })))
  const end = Date.now() + 60_000
  // The full key is printed on the first run only; a database that already has keys is refused
  // here because the volley needs a key.
  while (!/^(full key: \S+|api keys: .*)$/m.test(out)) {
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGKILL')
      throw new Error(`ventureql serve did not start:\n${err}`)
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  const url = /^ventureql: serving (https?:\/\/\S+)/m.exec(out)?.[1]
  const key = /^full key: (\S+)$/m.exec(out)?.[1]
  if (!url || !key) {
    child.kill('SIGKILL')
    throw new Error(`expected the URL and a new full key (a database without keys), got:\n${out}`)
  }
  const ca = options.http ? undefined : readFileSync(join(options.dataDir, 'cert.pem'), 'utf8')
  return { child, url, key, ca, stderr: () => err, exited }
}

export interface Outcome {
  /** The status of a complete response, or undefined when the request failed. */
  readonly status: number | undefined
  /** The error code when it failed (ECONNRESET, EPIPE, ECONNREFUSED, ...). */
  readonly error: string | undefined
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
  readonly finishedAt: number
}

/** One GET on a connection of its own (no agent, so no reuse), reading the whole response. */
export function fresh(child: Pick<ServeChild, 'ca'>, url: string, headers: Record<string, string> = {}, onSocket?: (req: ClientRequest) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send(target, { headers, agent: false, ...(child.ca ? { ca: child.ca } : {}) }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, error: undefined, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), finishedAt: Date.now() }))
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ status: undefined, error: e.code ?? e.message, headers: res.headers, body: '', finishedAt: Date.now() }))
    })
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: undefined, error: e.code ?? e.message, headers: {}, body: '', finishedAt: Date.now() }))
    onSocket?.(req)
    req.end()
  })
}

export interface Volley {
  readonly outcomes: readonly Outcome[]
  /** When the signal was sent, how many connections had been set up (TLS: handshake done) and how many responses had arrived. */
  readonly atSignal: { readonly connected: number; readonly answered: number }
  readonly signalledAt: number
}

/**
 * Opens `count` requests at once, each on a fresh connection, and sends `signal` to the server once
 * `signalAfterConnected` of the connections are set up, so that the signal lands while some
 * requests are answered, some are being processed and some connections are still being set up.
 */
export async function volleyWithSignal(server: ServeChild, options: {
  count: number; path: string; signalAfterConnected: number; signal?: NodeJS.Signals
}): Promise<Volley> {
  let connected = 0
  let answered = 0
  let atSignal: Volley['atSignal'] | undefined
  let signalledAt = 0
  const maybeSignal = () => {
    if (atSignal || connected < options.signalAfterConnected) return
    atSignal = { connected, answered }
    signalledAt = Date.now()
    server.child.kill(options.signal ?? 'SIGTERM')
  }
  const outcomes = await Promise.all(Array.from({ length: options.count }, () =>
    fresh(server, `${server.url}${options.path}`, { authorization: `Bearer ${server.key}` }, (req) => {
      req.on('socket', (socket) => {
        // TLS: the connection counts once the handshake is done (the server has accepted it and
        // spent work on it); plain HTTP: once TCP is connected.
        socket.once(server.ca ? 'secureConnect' : 'connect', () => { connected++; maybeSignal() })
      })
    }).then((outcome) => { answered++; return outcome })))
  if (!atSignal) throw new Error(`only ${connected} of ${options.count} connections were set up; the signal was never sent`)
  return { outcomes, atSignal, signalledAt }
}

/** "47 × 200, 3 × ECONNRESET" */
export function tally(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>()
  for (const o of outcomes) {
    const k = o.status !== undefined ? String(o.status) : o.error ?? 'unknown'
    counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} × ${k}`).join(', ')
}
