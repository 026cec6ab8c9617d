/**
 * @module Which database errors mean "busy or unreachable, try again" (a 503 with Retry-After over
 * HTTP) rather than a bug (a 500): SQLite's lock and I/O codes, and PostgreSQL's connection
 * failures, from either the server (SQLSTATE classes 08 and 57P, too many connections) or the
 * driver (a refused or reset socket, a connection terminated mid-query). A server that comes back
 * is used again by the next request: pg's pool opens new connections on demand.
 */

/** SQLite result codes that mean the database is busy or cannot be used right now. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|PROTOCOL|NOLFS)/
/** SQLSTATE: connection exception (08...), admin shutdown / crash shutdown / cannot connect now (57P0x), too many connections (53300). */
const PG_UNAVAILABLE = /^(08[0-9A-Z]{3}|57P0[1-4]|53300)$/
/** Node socket errors the pg driver passes on. */
const SOCKET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
/** Driver messages without a code: the connection ended under a query, or the pool could not connect in time. */
const DRIVER_MESSAGES = /Connection terminated|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect|database connection is not open|cannot reach PostgreSQL/i

export function isUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (SQLITE_UNAVAILABLE.test(code) || PG_UNAVAILABLE.test(code) || SOCKET_UNAVAILABLE.has(code))) return true
  const message = (error as { message?: unknown }).message
  if (typeof message === 'string' && DRIVER_MESSAGES.test(message)) return true
  const cause = (error as { cause?: unknown }).cause
  return cause !== undefined && cause !== error && isUnavailable(cause)
}
