/**
 * @module The bare route of the HTTP comparisons: a Hono app with one route returning constant
 * JSON. `bare-server.ts` serves it over sockets for the suite.
 */
import { Hono } from 'hono'

const BODY = { ok: true, service: 'ventureql-bench', items: [1, 2, 3] }

export function bareApp(): Hono {
  const app = new Hono()
  app.get('/bare', (c) => c.json(BODY))
  return app
}
