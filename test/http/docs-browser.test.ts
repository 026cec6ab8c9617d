/**
 * GET /docs in a real browser: `ventureql serve` as `npm start` runs it (HTTPS with its development
 * certificate, the 5,000-company demo database, its first-run keys) on a loopback port, and
 * Debian's Chromium driven by playwright-core. The page must list every operation of the OpenAPI
 * document, load nothing from any host but the server's, break no rule of its own
 * Content-Security-Policy, and its "Try it out", authorised the way the page says (Authorize, a
 * key), must send the documented examples and get 200s.
 *
 * A screenshot of the rendered page is kept at test-output/docs-page.png (and of one executed
 * operation at test-output/docs-page-try-it.png).
 *
 * Chromium is a system package (`apt-get install chromium`; .ci/run installs it). Without it this
 * test fails, saying so: it is never skipped. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type BrowserContext, type Page, type Request as BrowserRequest } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe, type ServeHandle } from '../../src/cli/serve.js'
import { OPENAPI_EXAMPLES } from '../../src/http/routes/openapi.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** Without the background-networking switches Chromium calls Google's services at start. */
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
]
const OUTPUT_DIR = resolve(import.meta.dirname, '..', '..', 'test-output')
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

const dirs: string[] = []
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

let serve: ServeHandle
let context: BrowserContext
let page: Page
interface Sent { url: string; method: string; authorization: string | undefined; status?: number }
/** Every request any page of the browser made: URL, method, Authorization header, status. */
const requests: Sent[] = []
const sentBy = new Map<BrowserRequest, Sent>()
/** Script errors and console errors (a Content-Security-Policy violation is one). */
const errors: string[] = []
let operations: string[]
/** What `serve` printed at start. */
const printed: string[] = []

/** Why the browser tests cannot run: each of them fails with it (they are never skipped). */
let noChromium: string | undefined
function needChromium(): void {
  if (noChromium) throw new Error(noChromium)
}

beforeAll(async () => {
  serve = await startServe({ dataDir: tempDir('vql-docs-serve-'), port: 0, workers: 1, out: (line) => printed.push(line), err: () => {} })
  if (!existsSync(CHROMIUM)) {
    noChromium = `Chromium is not installed at ${CHROMIUM}: this test needs it (as root: apt-get install -y --no-install-recommends chromium; .ci/run does that). Set CHROMIUM_PATH to use another binary.`
    return
  }
  // A fresh profile of its own, removed afterwards.
  context = await chromium.launchPersistentContext(tempDir('vql-docs-chromium-'), {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    // The development certificate is self-signed; curl is told with --cacert, the browser this way.
    ignoreHTTPSErrors: true,
    viewport: { width: 1280, height: 900 },
  })
  context.on('request', (r) => {
    const sent: Sent = { url: r.url(), method: r.method(), authorization: r.headers()['authorization'] }
    requests.push(sent)
    sentBy.set(r, sent)
  })
  // Before the page sees the answer: its status is recorded by the time the page shows it.
  context.on('response', (response) => {
    const sent = sentBy.get(response.request())
    if (sent) sent.status = response.status()
  })
  // Whatever is not for the server is refused, so nothing leaves the machine even if the page tried.
  await context.route((url) => !LOOPBACK.has(url.hostname), (route) => route.abort('blockedbyclient'))
  page = context.pages()[0] ?? await context.newPage()
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`))
  page.on('console', (message) => { if (message.type() === 'error') errors.push(`console: ${message.text()}`) })
}, 120_000)

afterAll(async () => {
  await context?.close()
  await serve?.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('GET /docs in Chromium', () => {
  it('is where `serve` says the reference is', () => {
    expect(printed).toContain(`API reference: ${serve.url}/docs (in a browser; Authorize with a key, then "Try it out")`)
  })

  it('lists every operation of the OpenAPI document, loading only from the server', async () => {
    needChromium()
    await page.goto(`${serve.url}/docs`)
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 })
    const doc = await page.evaluate(async () => (await fetch('openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> }
    operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`)).sort()
    expect(operations.length).toBeGreaterThanOrEqual(16)

    // Each operation as the page shows it: the method badge's text and the path (Swagger UI inserts
    // zero-width spaces into long paths for line breaking).
    const shown = await page.$$eval('.opblock', (blocks) => blocks.map((block) => {
      const method = block.querySelector('.opblock-summary-method')?.textContent ?? ''
      // A deprecated operation's path has a class of its own (struck through).
      const path = (block.querySelector('.opblock-summary-path, .opblock-summary-path__deprecated')?.textContent ?? '').replace(/\u200b/g, '')
      return `${method.toLowerCase()} ${path}`
    }))
    expect(shown.sort()).toEqual(operations)
    expect(await page.locator('.info .title').textContent()).toContain('ventureql')
    expect(await page.locator('button.authorize').isVisible()).toBe(true)

    mkdirSync(OUTPUT_DIR, { recursive: true })
    const shot = join(OUTPUT_DIR, 'docs-page.png')
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`screenshot: ${shot}`)

    const hosts = new Set(requests.map((r) => new URL(r.url).host))
    expect([...hosts]).toEqual([new URL(serve.url).host])
    expect(requests.map((r) => new URL(r.url).pathname)).toEqual(expect.arrayContaining(['/docs', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/docs.js', '/openapi.json']))
    expect(errors).toEqual([])
  }, 60_000)

  it('"Try it out", authorised with a key in the Authorize dialog, sends the documented examples and gets 200', async () => {
    needChromium()
    const key = serve.createdKeys!.full
    await page.click('button.authorize')
    const bearer = page.locator('.auth-container').filter({ hasText: 'bearerAuth' })
    await bearer.locator('input').fill(key)
    await bearer.locator('button.authorize').click()
    await page.click('button.btn-done')

    // A path parameter and a request body, each the document's example (query parameters are
    // filled the same way as path parameters: from the parameter's `example`).
    const tried: [method: string, path: string, expected: string][] = [
      ['get', '/companies/{id}', `/companies/${OPENAPI_EXAMPLES.operations['get /companies/{id}']!.request.path!.id}`],
      ['post', '/queries', '/queries'],
    ]
    for (const [method, path, expected] of tried) {
      const block = page.locator(`.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
      await block.locator('.opblock-summary').first().click()
      await block.locator('button.try-out__btn').click()
      const before = requests.length
      await block.locator('button.execute').click()
      const status = block.locator('.live-responses-table tbody .response-col_status').first()
      await status.waitFor({ timeout: 20_000 })
      expect((await status.textContent())?.trim(), `${method} ${path}`).toMatch(/^200/)
      const sent = requests.slice(before).filter((r) => r.method === method.toUpperCase() && new URL(r.url).host === new URL(serve.url).host)
      expect(sent.map((r) => r.url), `${method} ${path}`).toEqual([`${serve.url}${expected}`])
      expect(sent[0]!.authorization).toBe(`Bearer ${key}`)
      expect(sent[0]!.status).toBe(200)
      if (path === '/companies/{id}') {
        // The documented answer is shown too: the example's company.
        const name = (OPENAPI_EXAMPLES.operations['get /companies/{id}']!.response.body as { name: string }).name
        expect(await block.locator('.responses-inner').first().textContent()).toContain(name)
        // The operation from its top: parameters, Execute, the request sent and the answer's start.
        const shot = join(OUTPUT_DIR, 'docs-page-try-it.png')
        const top = await block.evaluate((element) => element.getBoundingClientRect().top) + (await page.evaluate('window.scrollY') as number)
        await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: top, width: 1280, height: 1400 } })
        console.log(`screenshot: ${shot}`)
      }
    }
    expect(new Set(requests.map((r) => new URL(r.url).host))).toEqual(new Set([new URL(serve.url).host]))
    expect(errors).toEqual([])
  }, 60_000)
})
