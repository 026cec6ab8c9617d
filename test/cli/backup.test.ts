/**
 * `ventureql backup --to DIR` (issue 29, item 4): an online copy of the data file and the state file
 * while `serve` runs and writes, and restoring it by copying the two files back: the restored keys,
 * quota counts and stored queries are those at backup time, and `serve` opens the restored database.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startServe } from '../../src/cli/serve.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'
import { stateFileOf } from '../../src/store/state-file.js'
import { runCli } from '../support/run-cli.js'

const root = mkdtempSync(join(tmpdir(), 'vql-backup-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function send(url: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const req = httpRequest(url, { method: text === undefined ? 'GET' : 'POST', headers: text === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(text)
  })
}

const quiet = { port: 0, http: true, companies: 50, workers: 1, out: () => {}, err: () => {} }

/** Keys, every quota count, and the stored queries' ids: what a restore must bring back. */
function stateOf(vdb: SqliteVentureDb) {
  const all = (sql: string) => vdb.sqlite.prepare(sql).all()
  return {
    keys: all('select key_id, key_hash, plan, quota_limit, revoked_at from api_keys order by key_id'),
    usage: all('select * from quota_usage order by key_id, period_start') as { key_id: number; [k: string]: unknown }[],
    storedQueries: all('select query_id, canonical from stored_queries order by query_id'),
  }
}

describe('ventureql backup --to DIR', () => {
  it('copies both files while serve writes; copying them back restores the keys, counts and stored queries of that moment', async () => {
    const dir = join(root, 'live')
    const db = join(dir, 'ventureql.db')
    const handle = await startServe({ ...quiet, dataDir: dir })
    const full = handle.createdKeys!.full
    const trial = handle.createdKeys!.trial
    const vdb = handle.engine.database as SqliteVentureDb
    let atBackup: ReturnType<typeof stateOf>
    let trialCounts: readonly [number, number]
    try {
      for (let i = 0; i < 3; i++) expect((await send(`${handle.url}/companies?key=${full}`)).status).toBe(200)
      const stored = await send(`${handle.url}/queries?key=${full}`, { dataset: 'companies', filter: { employees: { gte: 10 } } })
      expect(stored.status).toBe(200)
      const made = await runCli(['keys', 'create', '--data-dir', dir, '--plan', 'trial', '--quota', '50', '--label', 'before backup'])
      expect(made.exitCode).toBe(0)

      const trialUsage = () => Number(vdb.sqlite.prepare("select coalesce(sum(used), 0) from quota_usage u join api_keys k using (key_id) where k.plan = 'trial' and k.label = 'created by ventureql serve'").pluck().get())
      atBackup = stateOf(vdb)
      expect(atBackup.keys).toHaveLength(3)
      expect(atBackup.storedQueries.length).toBeGreaterThan(0)
      // The trial key keeps counting while the backup runs (the other figures stay as they are).
      let writing = true
      const before = trialUsage()
      const writer = (async () => { while (writing) expect((await send(`${handle.url}/companies?key=${trial}`)).status).toBe(200) })()
      await new Promise((r) => setTimeout(r, 50))
      const backup = await runCli(['backup', '--data-dir', dir, '--to', join(root, 'copy')])
      writing = false
      await writer
      trialCounts = [before, trialUsage()]
      // The writer did write while the backup ran.
      expect(trialCounts[1]).toBeGreaterThan(trialCounts[0])
      expect(backup.exitCode).toBe(0)
      expect(backup.stdout.split('\n').filter(Boolean)).toEqual([join(root, 'copy', 'ventureql.db'), stateFileOf(join(root, 'copy', 'ventureql.db'))])
      expect(backup.stderr).toContain('To restore: stop the server')

      // Writing goes on after the backup: none of it may survive the restore.
      for (let i = 0; i < 2; i++) expect((await send(`${handle.url}/companies?key=${full}`)).status).toBe(200)
      expect((await send(`${handle.url}/queries?key=${full}`, { dataset: 'companies', filter: { employees: { gte: 20 } } })).status).toBe(200)
      expect((await runCli(['keys', 'create', '--data-dir', dir, '--plan', 'full', '--quota', '5', '--label', 'after backup'])).exitCode).toBe(0)
      expect(stateOf(vdb)).not.toEqual(atBackup)
    } finally {
      await handle.close()
    }

    // Restore as the guide says: server stopped, the write-ahead logs gone, both files copied back.
    for (const suffix of ['', '-wal', '-shm', '-state', '-state-wal', '-state-shm']) rmSync(db + suffix, { force: true })
    copyFileSync(join(root, 'copy', 'ventureql.db'), db)
    copyFileSync(stateFileOf(join(root, 'copy', 'ventureql.db')), stateFileOf(db))

    const restored = openDatabase(db, { readonly: true })
    try {
      const now = stateOf(restored)
      expect(now.keys).toEqual(atBackup.keys)
      expect(now.storedQueries).toEqual(atBackup.storedQueries)
      const trialId = (atBackup.keys as { key_id: number; plan: string }[]).find((k) => k.plan === 'trial')!.key_id
      expect(now.usage.filter((u) => u.key_id !== trialId)).toEqual(atBackup.usage.filter((u) => u.key_id !== trialId))
      const trialUsed = now.usage.filter((u) => u.key_id === trialId).reduce((n, u) => n + Number(u.used), 0)
      expect(trialUsed).toBeGreaterThanOrEqual(trialCounts[0])
      expect(trialUsed).toBeLessThanOrEqual(trialCounts[1])
      expect(restored.sqlite.pragma('quick_check', { simple: true })).toBe('ok')
    } finally {
      await restored.close()
    }
    // serve opens it (its own state file found, so no new keys) and the keys of that moment work.
    const again = await startServe({ ...quiet, dataDir: dir })
    try {
      expect(again.createdKeys).toBeUndefined()
      expect((await send(`${again.url}/companies?key=${full}`)).status).toBe(200)
      expect((await send(`${again.url}/readyz`)).status).toBe(200)
    } finally {
      await again.close()
    }
  })

  it('never overwrites an earlier copy, and refuses a database whose state file is missing', async () => {
    const file = join(root, 'small.db')
    const vdb = openDatabase(file)
    await vdb.close()
    const to = join(root, 'small-copy')
    expect((await runCli(['backup', '--database', file, '--to', to])).exitCode).toBe(0)
    const twice = await runCli(['backup', '--database', file, '--to', to])
    expect(twice.exitCode).toBe(1)
    expect(twice.stderr).toContain(`${join(to, 'small.db')} already exists`)
    rmSync(stateFileOf(file))
    const lost = await runCli(['backup', '--database', file, '--to', join(root, 'small-copy-2')])
    expect(lost.exitCode).toBe(1)
    expect(lost.stderr).toContain(`ventureql backup: the state file ${stateFileOf(file)} does not exist`)
    expect(existsSync(join(root, 'small-copy-2', 'small.db'))).toBe(false)
  })
})
