/**
 * GET /docs through the fetch handler: a page that needs no key and counts against no quota, whose
 * every link (relative, from `/docs` and from `/docs/`) answers with a file of this server, taken
 * from the pinned swagger-ui-dist package, under a Content-Security-Policy that admits this origin
 * only. The page is not in the OpenAPI document. test/http/docs-browser.test.ts renders it.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contentSecurityPolicy, DOCS_ASSET_NAMES, DOCS_RENDERER, rendererVersion } from '../../src/http/docs-page.js'
import { BASE, createHarness, type Harness } from './harness.js'
import packageJson from '../../package.json' with { type: 'json' }

let h: Harness
beforeAll(async () => { h = await createHarness({ companies: 20 }) })
afterAll(async () => { await h.close() })

const rendererDir = dirname(createRequire(import.meta.url).resolve(`${DOCS_RENDERER}/package.json`))

/** The `href`, `src` and `data-openapi-url` values of a page. */
function linksOf(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src|data-openapi-url)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'))
}

describe('GET /docs', () => {
  it('is an HTML page without a key, with no quota headers, cache validation and a same-origin policy', async () => {
    const res = await h.get('/docs', { key: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/i)
    expect(res.headers.get('x-quota-limit')).toBeNull()
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const csp = res.headers.get('content-security-policy')
    expect(csp).toBe(contentSecurityPolicy(undefined))
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self';")
    expect(csp).toContain("connect-src 'self';")
    expect(csp).not.toMatch(/unsafe-eval|https?:/)
    const html = await res.text()
    expect(html).toContain('<div id="swagger-ui"')
    // Nothing from elsewhere: every link is relative to the page.
    expect(linksOf(html).length).toBeGreaterThanOrEqual(5)
    for (const link of linksOf(html)) expect(link, link).not.toMatch(/^([a-z]+:|\/)/i)
    expect(html).not.toMatch(/https?:\/\//)
  })

  it.each(['/docs', '/docs/'])('from %s, every link answers 200 without a key: the files and the OpenAPI document', async (path) => {
    const page = new URL(path, BASE)
    const html = await (await h.get(path, { key: null })).text()
    const targets = [...new Set(linksOf(html))].map((link) => new URL(link, page))
    expect(targets.map((u) => u.pathname).sort()).toEqual([
      '/docs/docs.js', '/docs/favicon-16x16.png', '/docs/favicon-32x32.png', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/openapi.json',
    ])
    for (const target of targets) {
      const res = await h.get(target.pathname, { key: null })
      expect(res.status, target.pathname).toBe(200)
      await res.arrayBuffer()
    }
  })

  it('serves the files of the pinned swagger-ui-dist, byte for byte, with types, validators and precompressed codings', async () => {
    expect(packageJson.dependencies[DOCS_RENDERER]).toBe(rendererVersion())
    expect(packageJson.dependencies[DOCS_RENDERER]).toMatch(/^\d+\.\d+\.\d+$/)
    const original = readFileSync(join(rendererDir, 'swagger-ui-bundle.js'))
    const plain = await h.get('/docs/swagger-ui-bundle.js', { key: null })
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(Buffer.from(await plain.arrayBuffer()).equals(original)).toBe(true)
    const etag = plain.headers.get('etag')!
    expect(etag).toMatch(/^W\/"/)

    const br = await h.get('/docs/swagger-ui-bundle.js', { key: null, init: { headers: { 'accept-encoding': 'gzip, br' } } })
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(br.headers.get('vary')).toMatch(/accept-encoding/i)
    const packed = Buffer.from(await br.arrayBuffer())
    expect(packed.byteLength).toBeLessThan(original.byteLength / 2)
    expect(brotliDecompressSync(packed).equals(original)).toBe(true)
    const gz = await h.get('/docs/swagger-ui.css', { key: null, init: { headers: { 'accept-encoding': 'gzip' } } })
    expect(gz.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(readFileSync(join(rendererDir, 'swagger-ui.css')))).toBe(true)

    const again = await h.get('/docs/swagger-ui-bundle.js', { key: null, init: { headers: { 'if-none-match': etag } } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  it('turns off what would reach the network: the validator badge and the top bar that loads any URL', async () => {
    const script = await (await h.get('/docs/docs.js', { key: null })).text()
    expect(script).toContain('validatorUrl: null')
    expect(script).toContain("layout: 'BaseLayout'")
    expect(script).not.toContain('StandalonePreset')
    expect(script).not.toMatch(/https?:\/\//)
  })

  it('answers only its own files: anything else under /docs is a 404', async () => {
    for (const path of ['/docs/package.json', '/docs/..%2Fpackage.json', '/docs/swagger-ui-bundle.js.map', '/docs/index.html', '/docs/swagger-initializer.js', '/docs/a/b']) {
      const res = await h.get(path)
      expect(res.status, path).toBe(404)
      expect(res.headers.get('content-type'), path).toMatch(/^application\/problem\+json/)
    }
    expect(DOCS_ASSET_NAMES).toEqual(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png', 'docs.js'])
  })

  it('counts against no quota, with a key either', async () => {
    const usage = async () => ((await h.json('/ratelimit/usage')) as { quota_remaining: number }[])[0]!.quota_remaining
    const before = await usage()
    for (const path of ['/docs', '/docs/', '/docs/docs.js', '/docs/swagger-ui.css']) {
      const res = await h.get(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-quota-remaining')).toBeNull()
      await res.arrayBuffer()
    }
    expect(await usage()).toBe(before)
  })

  it('answers HEAD without a body', async () => {
    const res = await h.request('/docs', { key: null, init: { method: 'HEAD' } })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
  })

  it('is not in the OpenAPI document', async () => {
    const doc = await h.json<{ paths: Record<string, unknown> }>('/openapi.json', { key: null })
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/docs'))).toEqual([])
  })
})

describe('createApp options', () => {
  it('baseUrl: try-it requests may go to its origin too', async () => {
    const other = await createHarness({ companies: 20, app: { baseUrl: 'https://data.example.com/v1' } })
    try {
      const res = await other.get('/docs', { key: null })
      expect(res.headers.get('content-security-policy')).toContain("connect-src 'self' https://data.example.com;")
    } finally {
      await other.close()
    }
  })

  it('docsPage: false leaves /docs unanswered (an unknown path: 404 with or without a key)', async () => {
    const other = await createHarness({ companies: 20, app: { docsPage: false } })
    try {
      expect((await other.get('/docs', { key: null })).status).toBe(404)
      expect((await other.get('/docs')).status).toBe(404)
      expect((await other.get('/docs/swagger-ui-bundle.js')).status).toBe(404)
      expect((await other.get('/openapi.json', { key: null })).status).toBe(200)
    } finally {
      await other.close()
    }
  })
})
