/**
 * @module GET /docs: a human-readable reference of the API, Swagger UI over the same OpenAPI
 * document as GET /openapi.json, with its "Try it out" requests pre-filled from the document's
 * examples (produced from the demo database, `npm run openapi-examples`).
 *
 * Offline: the page and every file it loads come from this server. Swagger UI's files are read at
 * run time from the installed `swagger-ui-dist` package (found through Node's module resolution, so
 * it works from src/ under tsx, from dist/ and from an installed copy of ventureql), and the page's
 * Content-Security-Policy lets it load scripts, styles and images from this origin only and send
 * requests ("Try it out") to this origin (and to `baseUrl`'s, when one is configured) only.
 * Swagger UI's defaults that would reach the network are off (the spec validator badge; the top bar
 * that loads any URL).
 *
 * Like the operations endpoints, the page and its files need no key and count against no quota;
 * they are not in the OpenAPI document either (it describes the data API, and the page is a view
 * of the document itself). Links are relative, so the page works under a path prefix too
 * (`/data/docs` behind a proxy or mounted in Express): `/docs` and `/docs/` both answer.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { Context } from 'hono'
import { chooseCoding } from './compression.js'
import type { AppDeps, HttpApp, HttpEnv } from './context.js'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** The page's path; its files are `/docs/<name>`. */
export const DOCS_PATH = '/docs'

/** The renderer's package, a runtime dependency pinned in package.json. */
export const DOCS_RENDERER = 'swagger-ui-dist'

/**
 * The page's own start-up script: a file rather than an inline script, so that the policy can keep
 * `script-src 'self'`. It reads the document's address from the page (relative to it).
 */
const INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    // The apis preset alone: no top bar, which would load documents from any URL typed into it.
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    // Swagger UI's default sends the document to an online validator for a badge: never.
    validatorUrl: null,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
})();
`

interface Asset {
  /** The file in the renderer's package, or the text of a file of this module. */
  readonly source: { readonly packageFile: string } | { readonly text: string }
  readonly contentType: string
}

/** Every file the page loads: a fixed list, so no request can name any other file. */
const ASSETS: Readonly<Record<string, Asset>> = Object.freeze({
  'swagger-ui-bundle.js': { source: { packageFile: 'swagger-ui-bundle.js' }, contentType: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { source: { packageFile: 'swagger-ui.css' }, contentType: 'text/css; charset=utf-8' },
  'favicon-32x32.png': { source: { packageFile: 'favicon-32x32.png' }, contentType: 'image/png' },
  'favicon-16x16.png': { source: { packageFile: 'favicon-16x16.png' }, contentType: 'image/png' },
  'docs.js': { source: { text: INIT_SCRIPT }, contentType: 'text/javascript; charset=utf-8' },
})

/** The names of the files under /docs/, for tests and the guides. */
export const DOCS_ASSET_NAMES: readonly string[] = Object.freeze(Object.keys(ASSETS))

/** The directory of the installed renderer package. */
export function rendererDirectory(): string {
  const require = createRequire(import.meta.url)
  let manifest: string
  try {
    manifest = require.resolve(`${DOCS_RENDERER}/package.json`)
  } catch (error) {
    throw new Error(`GET /docs needs the ${DOCS_RENDERER} package, a dependency of ventureql; it is not installed (${error instanceof Error ? error.message : String(error)}). Run npm install.`)
  }
  return dirname(manifest)
}

/** The renderer's version, as installed. */
export function rendererVersion(): string {
  return (JSON.parse(readFileSync(join(rendererDirectory(), 'package.json'), 'utf8')) as { version: string }).version
}

interface LoadedAsset {
  readonly body: Buffer
  readonly contentType: string
  readonly etag: string
  /** Compressed once, on first demand, and kept: the bundle is 1.4 MB. */
  readonly encoded: Partial<Record<'br' | 'gzip', Promise<Buffer>>>
}

/** The policy of the page: this origin only; `connect-src` also the configured public base URL. */
export function contentSecurityPolicy(baseUrl: string | undefined): string {
  let connect = "'self'"
  if (baseUrl) {
    try {
      connect += ` ${new URL(baseUrl).origin}`
    } catch {
      // An unparseable baseUrl is the operator's mistake and shows elsewhere; the page stays same-origin.
    }
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Swagger UI sets style attributes on the elements it renders.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/**
 * The page. Its links are relative to where it was asked for: from `/docs` the files are
 * `docs/<name>` and the document `openapi.json`; from `/docs/` they are `<name>` and `../openapi.json`.
 */
export function docsHtml(requestPath: string): string {
  const inside = requestPath.endsWith('/')
  const asset = (name: string) => escapeHtml(inside ? name : `docs/${name}`)
  const document = escapeHtml(inside ? '../openapi.json' : 'openapi.json')
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ventureql API reference</title>
<link rel="icon" type="image/png" sizes="32x32" href="${asset('favicon-32x32.png')}">
<link rel="icon" type="image/png" sizes="16x16" href="${asset('favicon-16x16.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<noscript><p>This page needs JavaScript. The same reference is the OpenAPI document: <a href="${document}">openapi.json</a>.</p></noscript>
<div id="swagger-ui" data-openapi-url="${document}"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('docs.js')}"></script>
</body>
</html>
`
}

/** Headers every answer of the page carries. */
function pageHeaders(deps: AppDeps): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(deps.options.baseUrl),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  }
}

/**
 * Mounts GET /docs and its files. Called before the key check (app.ts), like the operations
 * endpoints: the page is as public as the document it shows.
 */
export function registerDocsPage(app: HttpApp, deps: AppDeps): void {
  const loaded = new Map<string, LoadedAsset>()
  const load = (name: string, asset: Asset): LoadedAsset => {
    let found = loaded.get(name)
    if (found === undefined) {
      const body = 'text' in asset.source ? Buffer.from(asset.source.text, 'utf8') : readFileSync(join(rendererDirectory(), asset.source.packageFile))
      const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`
      found = { body, contentType: asset.contentType, etag, encoded: {} }
      loaded.set(name, found)
    }
    return found
  }

  // The path as asked for: Hono's c.req.path has the trailing slash taken off (strict: false).
  app.get(DOCS_PATH, (c) => c.html(docsHtml(new URL(c.req.url).pathname), 200, { ...pageHeaders(deps), 'Cache-Control': 'no-cache' }))

  app.get(`${DOCS_PATH}/:file`, async (c: Context<HttpEnv>) => {
    const name = c.req.param('file') ?? ''
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined
    if (asset === undefined) return c.notFound()
    const file = load(name, asset)
    const headers: Record<string, string> = {
      ...pageHeaders(deps),
      'Content-Type': file.contentType,
      // Revalidated on every use: the files change when ventureql or the renderer is upgraded.
      'Cache-Control': 'no-cache',
      ETag: file.etag,
      Vary: 'Accept-Encoding',
    }
    const held = c.req.header('if-none-match')
    if (held !== undefined && held.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag.replace(/^W\//, ''))) {
      return c.body(null, 304, headers)
    }
    const coding = file.contentType.startsWith('image/') || file.body.byteLength < 1024 ? undefined : chooseCoding(c.req.header('accept-encoding') ?? null)
    if (coding === undefined) return c.body(new Uint8Array(file.body), 200, headers)
    const encoded = file.encoded[coding] ??= (coding === 'br'
      ? brotli(file.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: file.body.byteLength } })
      : gzipAsync(file.body, { level: 9 })
    ).catch((error: unknown) => {
      // Not kept: the next request tries again.
      delete file.encoded[coding]
      throw error
    })
    const body = await encoded
    // Already encoded: the app's own compression (compression.ts) leaves it alone.
    return c.body(new Uint8Array(body), 200, { ...headers, 'Content-Encoding': coding })
  })
}
