/**
 * @module The bare route of the HTTP comparison: a Hono app with one route returning constant
 * JSON, served by the same node server adapter as `ventureql serve` (`startNodeServer`: the
 * @hono/node-server request listener and its global Request and Response, the same timeouts and graceful close), plain HTTP on
 * loopback. Prints its URL the way `ventureql serve` does, so one launcher starts either.
 */
import { startNodeServer } from '../../src/http/node-server.js'
import { bareApp } from './bare-app.js'

const app = bareApp()
// The adapter's lightweight Request and Response, as `ventureql serve` runs it (src/cli/serve.ts).
const server = await startNodeServer({ fetch: (request) => Promise.resolve(app.fetch(request)), port: 0, host: '127.0.0.1', overrideGlobalObjects: true })
process.stdout.write(`ventureql: serving ${server.url} (bare route)\n`)
const stop = () => void server.close(2000).then(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
