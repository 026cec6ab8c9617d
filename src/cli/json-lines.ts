/**
 * @module The lines of a JSON Lines file, each decoded as strict UTF-8. `readline` over a `utf8`
 * stream quietly turns invalid bytes into U+FFFD, so a damaged line was stored with replacement
 * characters instead of being rejected; here such a line comes back as `invalid` and the caller
 * rejects it like any other bad line.
 */
import { createReadStream } from 'node:fs'

export type FileLine =
  | { readonly line: number; readonly text: string; readonly invalid?: undefined }
  | { readonly line: number; readonly invalid: string; readonly text?: undefined }

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

/**
 * Each line of `file`, numbered from 1; `\n` or `\r\n` endings. A byte order mark starting line 1
 * (Windows editors write one; JSON.parse refuses it) is dropped; anywhere else it is text.
 */
export async function* fileLines(file: string): AsyncGenerator<FileLine> {
  // ignoreBOM: true keeps a U+FEFF in the text; line 1's is removed below.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  let pending: Buffer[] = []
  let line = 0
  const decode = (bytes: Buffer): FileLine => {
    line++
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length
    let text: string
    try {
      text = decoder.decode(bytes.subarray(0, end))
    } catch {
      return { line, invalid: 'not valid UTF-8 text (a byte sequence no UTF-8 encoder writes); the line is not stored' }
    }
    return { line, text: line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text }
  }
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let start = 0
    for (let nl = chunk.indexOf(NEWLINE, start); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl)
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece])
      pending = []
      yield decode(bytes)
      start = nl + 1
    }
    if (start < chunk.length) pending.push(chunk.subarray(start))
  }
  if (pending.length > 0) yield decode(Buffer.concat(pending))
}
