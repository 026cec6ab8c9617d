/**
 * @module Response compression by `Accept-Encoding`: brotli (`br`) or gzip, whichever the client
 * ranks higher (brotli on a tie: smaller for JSON). Hono's `compress` middleware offers gzip and
 * deflate only (it uses `CompressionStream`, which has no brotli on Node 20), so this uses
 * node:zlib, asynchronously (on libuv's thread pool, off the event loop). Bodies here are JSON the
 * app has already built in memory, so the whole body is compressed at once.
 *
 * Left alone: bodies under 1 KiB (the headers would cost more than is saved), HEAD, 204/304,
 * responses already encoded, and types that are not text or JSON.
 */
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** Smallest body compressed. */
export const COMPRESSION_THRESHOLD_BYTES = 1024

/**
 * Brotli quality 5: close to gzip's speed at a smaller size; the default 11 takes ~20x longer on
 * a 100 KB page, which a server pays on every request.
 */
const BROTLI_QUALITY = 5

/** Streamed exports (routes/export.ts): compressing reads the whole body first, which a stream of any size must not. */
const STREAMED = /^(text\/csv|application\/x-ndjson)/i
const COMPRESSIBLE = /^(application\/(json|problem\+json|[a-z.+-]*\+json)|text\/)/i

type Coding = 'br' | 'gzip'

/** The coding to use for this `Accept-Encoding`, or undefined for identity. */
export function chooseCoding(acceptEncoding: string | null): Coding | undefined {
  if (!acceptEncoding) return undefined
  const q = new Map<string, number>()
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const value = qParam === undefined ? 1 : Number(qParam.slice(2))
    q.set(name, Number.isFinite(value) ? value : 0)
  }
  const rank = (coding: Coding) => q.get(coding) ?? q.get('*') ?? 0
  const br = rank('br')
  const gz = rank('gzip')
  if (br <= 0 && gz <= 0) return undefined
  return br >= gz ? 'br' : 'gzip'
}

/** `response` compressed for `request` when worthwhile; `Vary: Accept-Encoding` on every compressible answer. */
export async function compressed(request: Request, response: Response): Promise<Response> {
  if (request.method === 'HEAD' || response.status === 204 || response.status === 304) return response
  const type = response.headers.get('content-type') ?? ''
  if (response.headers.has('content-encoding') || !COMPRESSIBLE.test(type) || STREAMED.test(type)) return response
  const accepted = chooseCoding(request.headers.get('accept-encoding'))
  // A client that takes no compression gets the answer as it is, marked as varying. Reading the
  // body to copy it would turn the node adapter's lightweight Response into a full one (a
  // ReadableStream and a second Response per request: ~0.05 ms, a quarter of the HTTP layer).
  if (accepted === undefined && markVaryInPlace(response.headers)) return response
  if (response.body === null) return response
  const headers = new Headers(response.headers)
  withVary(headers)
  const body = Buffer.from(await response.arrayBuffer())
  const coding = body.byteLength >= COMPRESSION_THRESHOLD_BYTES ? accepted : undefined
  if (coding === undefined) return new Response(body, { status: response.status, statusText: response.statusText, headers })
  const packed = coding === 'br'
    ? await brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
    : await gzipAsync(body)
  headers.set('content-encoding', coding)
  headers.set('content-length', String(packed.byteLength))
  return new Response(packed, { status: response.status, statusText: response.statusText, headers })
}

function withVary(headers: Headers): void {
  const vary = headers.get('vary')
  if (!vary || !/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) headers.set('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding')
}

/** Adds `Vary: Accept-Encoding` to the response's own headers; false when they cannot change (a fetched response's). */
function markVaryInPlace(headers: Headers): boolean {
  try {
    withVary(headers)
    return true
  } catch {
    return false
  }
}
