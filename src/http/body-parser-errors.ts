/**
 * @module The answer to a body a host's parser refused before ventureql saw it (`express.json()`,
 * `express.urlencoded()`, body-parser and anything raising its errors): malformed JSON, a body over
 * the parser's limit, an encoding it cannot read. Express would answer those with its HTML error
 * page (a stack trace outside production); this error handler answers the API's problem+json instead.
 * It imports no framework: it is a Connect-style `(error, req, res, next)` handler, and passes on
 * every error that is not a body parser's refusal.
 *
 * @example
 * server.use(express.json())
 * server.use('/data', (req, res) => handler(req, res))
 * server.use('/data', bodyParserErrorHandler())
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { previewValue, redactKeys } from '../errors/format.js'
import { issue, type Issue } from '../errors/issue.js'
import { issuesResponse } from './problem.js'

export type BodyParserErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void

/** What body-parser attaches to the errors it raises (`type`, `status`, and per type `limit`, `length`, `body`, `charset`). */
interface ParserError {
  readonly type?: unknown
  readonly status?: unknown
  readonly message?: unknown
  readonly limit?: unknown
  readonly length?: unknown
  readonly body?: unknown
  readonly charset?: unknown
  readonly encoding?: unknown
}

export function bodyParserErrorHandler(): BodyParserErrorHandler {
  return (error, _req, res, next) => {
    const refusal = refusalOf(error)
    if (refusal === undefined || res.headersSent) return next(error)
    const response = issuesResponse([refusal.issue], refusal.status)
    void response.text().then((body) => {
      res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': Buffer.byteLength(body) })
      res.end(body)
    }, (failed: unknown) => next(failed))
  }
}

function refusalOf(error: unknown): { status: number; issue: Issue } | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const e = error as ParserError
  const status = typeof e.status === 'number' ? e.status : undefined
  if (typeof e.type !== 'string' || status === undefined || status < 400 || status > 499) return undefined
  const bytes = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? `${n} bytes` : 'its size')
  switch (e.type) {
    case 'entity.parse.failed':
      return {
        status: 400,
        issue: issue({
          code: 'invalid_json', path: '',
          message: `The request body is not valid JSON: ${redactKeys(String(e.message ?? 'it could not be parsed'))}.`,
          expected: 'JSON', ...(typeof e.body === 'string' ? { got: redactKeys(previewValue(e.body)) } : {}),
        }),
      }
    case 'entity.too.large':
      return {
        status: 413,
        issue: issue({
          code: 'limit_exceeded', path: '',
          message: `The request body (${bytes(e.length)}) is larger than the server's body parser accepts (${bytes(e.limit)}).`,
          expected: `at most ${bytes(e.limit)}`, got: bytes(e.length),
        }),
      }
    case 'parameters.too.many':
      return { status: 413, issue: issue({ code: 'limit_exceeded', path: '', message: 'The form body has more parameters than the server\'s body parser accepts.' }) }
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return {
        status: 415,
        issue: issue({
          code: 'invalid_type', path: '',
          message: `The request body's ${e.type === 'charset.unsupported' ? `charset ${previewValue(e.charset)}` : `Content-Encoding ${previewValue(e.encoding)}`} is not one the server reads; send UTF-8 JSON, uncompressed or gzip.`,
        }),
      }
    case 'request.aborted':
    case 'request.size.invalid':
      return { status: 400, issue: issue({ code: 'invalid_type', path: '', message: 'The request body did not arrive whole (the client stopped, or sent fewer bytes than its Content-Length).', expected: 'a whole request body' }) }
    default:
      return undefined
  }
}
