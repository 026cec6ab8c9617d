/**
 * @module A request target with raw (unencoded) non-ASCII bytes, which Node's HTTP parser refuses
 * before any handler sees the request. Clients that build URLs by concatenation (curl, PHP's
 * `file_get_contents`) send `?company_name=café` as it is; the refusal says which parameter (or the
 * path) holds the bytes and how to send them instead, rather than a bare "could not be parsed".
 */
import { issue, type Issue } from '../errors/issue.js'
import { capText } from '../errors/format.js'
import { issuesResponse } from './problem.js'

/**
 * The refusal of a request whose first line (in `rawPacket`, the bytes the parser had) carries raw
 * bytes over 0x7F in its target; undefined when it does not (another parse error).
 */
export function rawUrlRefusal(rawPacket: Buffer | undefined): Response | undefined {
  if (rawPacket === undefined) return undefined
  const lineEnd = rawPacket.indexOf(0x0a)
  const line = rawPacket.subarray(0, lineEnd < 0 ? rawPacket.length : lineEnd)
  const firstSpace = line.indexOf(0x20)
  if (firstSpace < 0) return undefined
  const afterTarget = line.indexOf(0x20, firstSpace + 1)
  const target = line.subarray(firstSpace + 1, afterTarget < 0 ? line.length : afterTarget)
  if (!target.some((byte) => byte > 0x7f)) return undefined
  const question = target.indexOf(0x3f)
  const path = question < 0 ? target : target.subarray(0, question)
  const issues: Issue[] = []
  if (path.some((byte) => byte > 0x7f)) issues.push(rawIssue('', 'the path', path))
  if (question >= 0) {
    for (const pair of split(target.subarray(question + 1), 0x26)) {
      if (!pair.some((byte) => byte > 0x7f)) continue
      const equals = pair.indexOf(0x3d)
      const name = pair.subarray(0, equals < 0 ? pair.length : equals)
      const value = equals < 0 ? Buffer.alloc(0) : pair.subarray(equals + 1)
      const shownName = name.some((byte) => byte > 0x7f) ? encode(name) : name.toString('latin1')
      issues.push(rawIssue(`/${shownName}`, `the parameter \`${capText(decodeURIComponentSafe(shownName), 60)}\``, pair, value, shownName))
    }
  }
  return issuesResponse(issues)
}

function rawIssue(path: string, where: string, bytes: Buffer, value = bytes, name?: string): Issue {
  const utf8 = decodeUtf8(value)
  const encodedPair = name === undefined ? encode(bytes) : `${name}=${encode(value)}`
  return issue({
    code: 'invalid_value',
    path,
    message: utf8 === undefined
      ? `The URL has raw bytes in ${where} that are not UTF-8 text; send the value as UTF-8, percent-encoded (every byte over 0x7F as %XX).`
      : `The URL has unencoded non-ASCII characters in ${where} (${JSON.stringify(capText(utf8, 60))}); percent-encode them as UTF-8: ${capText(encodedPair, 200)}.`,
    expected: 'a URL whose non-ASCII characters are percent-encoded UTF-8',
    got: utf8 === undefined ? 'raw bytes that are not UTF-8' : capText(utf8, 60),
  })
}

function split(bytes: Buffer, separator: number): Buffer[] {
  const parts: Buffer[] = []
  let start = 0
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === separator) {
      parts.push(bytes.subarray(start, i))
      start = i + 1
    }
  }
  return parts
}

/** Percent-encodes the bytes over 0x7F (and nothing else: the rest was sent as the client meant it). */
function encode(bytes: Buffer): string {
  let out = ''
  for (const byte of bytes) out += byte > 0x7f ? `%${byte.toString(16).toUpperCase()}` : String.fromCharCode(byte)
  return out
}

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
