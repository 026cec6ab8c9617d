/**
 * The HTTP handler over an inline engine on the bench database, in this process, with a fresh
 * full-plan key: what `http-cost.ts` and `listings.ts` time. An open handle runs the engine on the
 * caller's thread (no worker hop), as an embedding host would.
 */
import { createEngine, type Engine } from '../../src/engine.js'
import { createApp, type VentureApp } from '../../src/http/app.js'
import { createApiKey } from '../../src/store/api-keys.js'
import { openBenchDatabase } from './dataset.js'

export interface InlineApp {
  readonly engine: Engine
  readonly app: VentureApp
  /** The key's Authorization header. */
  readonly headers: { readonly authorization: string }
  close(): Promise<void>
}

export async function inlineBenchApp(label: string): Promise<InlineApp> {
  const vdb = openBenchDatabase()
  const made = await createApiKey(vdb, { plan: 'full', quota: 2_000_000_000, period: 'day', label })
  if (!made.ok) throw new Error('bench: could not create a key')
  const engine = createEngine({ database: vdb })
  return {
    engine,
    app: createApp(engine),
    headers: { authorization: `Bearer ${made.value.key}` },
    close: async () => {
      await engine.close()
      await vdb.close()
    },
  }
}
