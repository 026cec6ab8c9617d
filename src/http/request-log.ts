/**
 * @module The request log of `serve` (pino): one line per answered request, JSON for log
 * collectors, or a human-readable line (pino-pretty) on a terminal:
 *
 *   {"level":30,"time":"2026-06-15T12:00:00.000Z","msg":"request","request_id":"3f6c...","method":"GET","route":"/companies/:id","path":"/companies/42","status":200,"duration_ms":1.8}
 *   12:00:00.000 INFO: GET /companies/42 200 1.8 ms (route /companies/:id, request 3f6c...)
 *
 * Entries come from the app (`onRequest`, observe.ts) and from the Node bridge for answers the app
 * never saw (413 before the body was read, 503 during shutdown, CONNECT). A line never holds a
 * query string (it may carry `?key=`) or a key-shaped run: paths arrive redacted.
 */
import pino, { type DestinationStream, type Logger } from 'pino'
import pretty from 'pino-pretty'
import type { RequestEntry } from './observe.js'

export type LogFormat = 'json' | 'pretty'

export interface RequestLogOptions {
  /** `json` (one JSON object per line) or `pretty` (a human-readable line). */
  readonly format: LogFormat
  /** Where lines go. Default: stderr. */
  readonly destination?: DestinationStream
  /** Colours in the pretty form. Default: whether stderr is a terminal. */
  readonly colorize?: boolean
}

export interface RequestLog {
  readonly logger: Logger
  /** Writes one request's line. */
  log(entry: RequestEntry): void
}

/** `auto`: pretty on a terminal, JSON otherwise (a file, a pipe, a container's log collector). */
export function resolveLogFormat(format: 'auto' | LogFormat, stream: { readonly isTTY?: boolean } = process.stderr): LogFormat {
  return format === 'auto' ? (stream.isTTY ? 'pretty' : 'json') : format
}

export function createRequestLog(options: RequestLogOptions): RequestLog {
  const destination = options.format === 'pretty'
    ? pretty({
      destination: options.destination ?? 2,
      sync: true,
      colorize: options.colorize ?? Boolean(process.stderr.isTTY),
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      hideObject: true,
      messageFormat: '{method} {path} {status} {duration_ms} ms (route {route}, request {request_id})',
    })
    : options.destination ?? pino.destination({ dest: 2, sync: true })
  const logger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination)
  return Object.freeze({
    logger,
    log(entry: RequestEntry) {
      const fields = {
        request_id: entry.requestId,
        method: entry.method,
        route: entry.route,
        path: entry.path,
        status: entry.status,
        duration_ms: Math.round(entry.ms * 10) / 10,
      }
      if (entry.status >= 500) logger.error(fields, 'request')
      else logger.info(fields, 'request')
    },
  })
}
