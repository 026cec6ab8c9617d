/**
 * The requests the HTTP load benchmarks send (autocannon), one definition for the suite
 * (`suite/http-load.ts`), `serve-memory.ts` and `serve-switches.ts`: company details spread over
 * the table (997 ids), search prefixes of 1-4 letters (64 terms), a listing, and POST /queries.
 */
import type autocannon from 'autocannon'

const LETTERS = 'abcdefghilmnoprstuvw'

export interface LoadRequests {
  readonly detail: autocannon.Request
  readonly listing: autocannon.Request
  readonly search: autocannon.Request
  query(body: string): autocannon.Request
}

/** The company ids the detail load asks for: 997 spread over the table. */
export function loadIds(companies: number): number[] {
  return Array.from({ length: 997 }, (_, i) => 1 + Math.floor((i * companies) / 997))
}

/** The terms the search load sends: 64 prefixes of 1-4 letters. */
export function loadTerms(): string[] {
  return Array.from({ length: 64 }, (_, i) => Array.from({ length: 1 + (i % 4) }, (_, j) => LETTERS[(i * 7 + j * 3) % LETTERS.length]).join(''))
}

export function loadRequests(companies: number): LoadRequests {
  const ids = loadIds(companies)
  const terms = loadTerms()
  let n = 0
  const get = (path: () => string): autocannon.Request => ({ method: 'GET', setupRequest: (req: autocannon.Request) => ({ ...req, path: path() }) })
  return {
    detail: get(() => `/companies/${ids[n++ % ids.length]}`),
    listing: get(() => '/companies?stage=a|b&country=USA'),
    search: get(() => `/search?term=${terms[n++ % terms.length]}`),
    query: (body) => ({ method: 'POST', path: '/queries', headers: { 'content-type': 'application/json' }, body }),
  }
}
