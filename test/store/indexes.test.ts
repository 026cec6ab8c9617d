/**
 * Secondary indexes around bulk loads: a load that died leaves a note the next open acts on, but an
 * open next to a load that is still running leaves the indexes to that load.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { deferIndexes } from '../../src/store/indexes.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'

const open: SqliteVentureDb[] = []
afterEach(async () => { for (const v of open.splice(0)) await v.close() })

const indexCount = (vdb: SqliteVentureDb) =>
  vdb.sqlite.prepare(`select count(*) from sqlite_master where type = 'index' and sql is not null and tbl_name not like 'kysely_%'`).pluck().get() as number

/** Rewrites the note as if another process (`pid`) had dropped the indexes. */
function noteFrom(vdb: SqliteVentureDb, pid: number): void {
  const note = JSON.parse(vdb.sqlite.prepare(`select value from meta where key = 'deferred_indexes'`).pluck().get() as string) as { pid: number }
  vdb.sqlite.prepare(`update meta set value = ? where key = 'deferred_indexes'`).run(JSON.stringify({ ...note, pid }))
}

function droppedIndexesIn(file: string): { before: number; dropped: number } {
  const vdb = openDatabase(file)
  const before = indexCount(vdb)
  const dropped = deferIndexes(vdb.sqlite)
  return { before, dropped: (vdb.sqlite.close(), dropped) }
}

describe('deferred indexes', () => {
  test('an open rebuilds the indexes a dead loader dropped', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vq-idx-')), 'a.db')
    const { before, dropped } = droppedIndexesIn(file)
    expect(dropped).toBeGreaterThan(10)
    const exited = spawnSync(process.execPath, ['-e', '0']).pid!
    const vdb = openDatabase(file, { migrate: false })
    noteFrom(vdb, exited)
    vdb.sqlite.close()
    const reopened = openDatabase(file)
    open.push(reopened)
    expect(indexCount(reopened)).toBe(before)
  })

  test('an open leaves them alone while the loader that dropped them still runs', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vq-idx-')), 'b.db')
    const { before, dropped } = droppedIndexesIn(file)
    const vdb = openDatabase(file, { migrate: false })
    noteFrom(vdb, process.ppid)   // a live process that is not this one
    vdb.sqlite.close()
    const reopened = openDatabase(file)
    open.push(reopened)
    expect(indexCount(reopened)).toBe(before - dropped)
  })
})
