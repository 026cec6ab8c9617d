/**
 * @module The domain parameter: a URL, host or bare domain read as the host, and its spellings.
 */
import { p } from './table.js'
export const HOST_NAME = /^[\p{L}\p{N}_](?:[\p{L}\p{N}_-]*[\p{L}\p{N}_])?(?:\.[\p{L}\p{N}_](?:[\p{L}\p{N}_-]*[\p{L}\p{N}_])?)+$/u

/** The host of an address as sent (case kept): no scheme, path, port, trailing dot or leading `www.`. */
export function hostOf(text: string): string {
  let d = text.trim()
  d = d.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
  d = d.split(/[/?#]/, 1)[0] ?? ''
  d = d.replace(/:[0-9]*$/, '').replace(/\.$/, '')
  return /^www\./i.test(d) ? d.slice(4) : d
}

/**
 * A company's domain in canonical form: lower case, without scheme, `www.`, port, path or a
 * trailing dot. Undefined when what remains is not a host name of two or more labels (`www.`
 * alone, `localhost`, text with spaces or quotes), so nothing that cannot match reaches the engine.
 */
export function normaliseDomain(text: string): string | undefined {
  const d = hostOf(text).toLowerCase()
  if (d.length === 0 || d.length > 253) return undefined
  return HOST_NAME.test(d) ? d : undefined
}

/**
 * The stored spellings a domain parameter matches: the canonical form and the spelling sent, each
 * with and without `www.`. Matching them with `in` keeps the lookup on the website index; a
 * case-insensitive comparison (`lower(website) = ?`) would scan every company. Loaders write
 * domains in lower case, so the canonical form finds them; a website imported in mixed case is
 * found when the client spells it the same way.
 */
export function domainSpellings(text: string): string[] | undefined {
  const canonical = normaliseDomain(text)
  if (canonical === undefined) return undefined
  const sent = hostOf(text)
  return [...new Set([canonical, `www.${canonical}`, sent, `www.${sent}`])]
}
