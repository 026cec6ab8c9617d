/**
 * @module GET /queries/:query_id/export: every record of a stored query, in its sort order, as one
 * streamed file: NDJSON (one record per line, as POST /queries shows records) or CSV (RFC 4180 by
 * csv-stringify: a header row, tags joined by `|`, nested values as JSON).
 *
 *   page 1 (total, dataset) ─ quota reservation ─ ReadableStream: pull → one keyset batch → lines
 *
 * The stream is pull-based: a batch is read only when the client has taken the one before (the
 * Node bridge reads as the socket drains), so memory stays at one batch whatever the result's
 * size. Each batch is its own engine call (`engine.exportBatch`), with the call's budget and its
 * turn in the fair queue, so an export never holds a worker between batches. A client that goes
 * away cancels the stream: no further batch is read, and the one running is stopped.
 *
 * Quota: one request per started 1,000 rows, reserved up front from the query's total (the export
 * request itself is the first), all or none; the X-Quota-* headers show the state after the
 * reservation and `X-Export-Requests` what it cost. Trial keys are refused (403).
 */
import type { Context } from 'hono'
import { stringify } from 'csv-stringify/sync'
import { z } from 'zod'
import type { DatasetName } from '../../catalog/index.js'
import type { ResultRecord } from '../../execute/records.js'
import { issue } from '../../errors/issue.js'
import { csvCell } from '../views/csv-cell.js'
import { checkedIdentity, requestKey } from '../auth.js'
import { callOptions, type AppDeps, type HttpEnv, type RouteModule } from '../context.js'
import { wireSelection, type WireSelection } from '../fields.js'
import { misspeltParameterIssues, parameterNames, QueryParams } from '../params.js'
import { issuesResponse, problemResponse } from '../problem.js'
import { quotaExceeded } from '../quota.js'
import { storedFieldsParam } from '../schemas/fields.js'
import { resultRecordSchemas } from '../schemas/queries.js'
import { engineFieldsBeforeDataset, pageFailure, resultsView } from './queries.js'

/** Rows per quota request: an export of N rows counts as ceil(N / 1,000) requests (at least one). */
export const EXPORT_ROWS_PER_REQUEST = 1000

const FORMATS = { ndjson: 'application/x-ndjson', csv: 'text/csv' } as const
type Format = keyof typeof FORMATS

const EXPORT_QUERY = z.object({
  format: z.enum(['ndjson', 'csv']).optional().describe('ndjson (default) or csv. Without it, `Accept: text/csv` or `application/x-ndjson` chooses.'),
  ...storedFieldsParam,
})
const EXPORT_PARAMETERS = parameterNames(EXPORT_QUERY)

/** The format asked for: the parameter, else the first of the two media types `Accept` names, else NDJSON. */
function formatOf(param: string | undefined, accept: string | null): Format | undefined {
  if (param !== undefined) return (Object.hasOwn(FORMATS, param) ? param : undefined) as Format | undefined
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim().toLowerCase())
  for (const type of types) {
    if (type === FORMATS.csv) return 'csv'
    if (type === FORMATS.ndjson) return 'ndjson'
  }
  return 'ndjson'
}

async function exportQuery(c: Context<HttpEnv>, deps: AppDeps): Promise<Response> {
  const params = QueryParams.of(c.req.raw)
  const formatParam = params.one('format')
  const fields = params.one('fields')
  const issues = [
    ...misspeltParameterIssues(params, EXPORT_PARAMETERS, 'GET /queries/{query_id}/export'),
    ...(formatParam.ok ? [] : formatParam.issues), ...(fields.ok ? [] : fields.issues),
  ]
  if (issues.length > 0 || !formatParam.ok || !fields.ok) return issuesResponse(issues)
  const format = formatOf(formatParam.value, c.req.header('accept') ?? null)
  if (format === undefined) {
    return issuesResponse([issue({
      code: 'invalid_value', path: '/format', message: `\`format\` is ndjson or csv; got ${JSON.stringify(formatParam.value)}.`,
      expected: 'ndjson or csv', got: JSON.stringify(formatParam.value),
    })])
  }
  const identity = checkedIdentity(c)
  if (identity.plan === 'trial') {
    return problemResponse(403, { detail: 'Exports need a full key: trial keys receive the first page of a query only.', extra: { plan: 'trial' } })
  }

  // Page 1 of one record: the query's dataset, its total (counted once, then cached) and the checks of its id and fields.
  const queryId = c.req.param('query_id')
  const engineFields = engineFieldsBeforeDataset(fields.value)
  const first = await deps.engine.page(queryId, { page: 1, per_page: 1, ...(engineFields ? { fields: engineFields } : {}) }, callOptions(c))
  if (!first.ok) return pageFailure(first.issues)
  const dataset = first.value.query.dataset as DatasetName
  const selection = wireSelection(dataset, fields.value)
  if (!selection.ok) return issuesResponse(selection.issues)
  const total = first.value.meta.total_record_count
  const requests = Math.max(1, Math.ceil(total / EXPORT_ROWS_PER_REQUEST))
  const refused = await reserve(c, deps, requests - 1, total, requests)
  if (refused) return refused

  const body = exportStream(c, deps, { queryId: first.value.query_id, dataset, format, selection: selection.value, engineFields })
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson',
      'content-disposition': `attachment; filename="${first.value.query_id}.${format}"`,
      'x-export-rows': String(total),
      'x-export-requests': String(requests),
    },
  })
}

/**
 * Counts the export's requests beyond the one already counted: with the built-in keys in one
 * atomic statement (all or none), with a host's quota hook by asking it once per request (it
 * decides each). A refusal is the usual 429 and nothing is streamed.
 */
async function reserve(c: Context<HttpEnv>, deps: AppDeps, extra: number, total: number, requests: number): Promise<Response | undefined> {
  if (extra === 0) return undefined
  const now = deps.options.clock()
  const detail = (remaining: number) => `This export of ${total} rows counts as ${requests} requests (one per started ${EXPORT_ROWS_PER_REQUEST} rows); `
    + `${remaining + 1} were left in this period, counting this request. Narrow the query, or wait for the period to reset.`
  const { auth, quota } = deps.options
  if (auth === undefined && quota === undefined) {
    const key = requestKey(c.req.raw)!
    const reserved = await deps.engine.access.reserve(key, now, extra, { signal: c.req.raw.signal })
    if (!reserved.ok) return problemResponse(403, { detail: 'The API key is no longer valid.' })
    if (!reserved.quota.allowed) return quotaExceeded(reserved.quota, now, detail(reserved.quota.remaining))
    c.set('quota', reserved.quota)
    return undefined
  }
  if (quota === undefined) return undefined
  const identity = checkedIdentity(c)
  for (let i = 0; i < extra; i++) {
    const decided = await quota(c.req.raw, { identity, now, count: true })
    if (!decided.allowed) return quotaExceeded(decided.quota, now, detail(decided.quota.remaining))
    if (decided.quota) c.set('quota', decided.quota)
  }
  return undefined
}

interface ExportPlan {
  readonly queryId: string
  readonly dataset: DatasetName
  readonly format: Format
  readonly selection: WireSelection | undefined
  readonly engineFields: string | undefined
}

/** The export's body: one batch per pull, as NDJSON lines or CSV rows (the header with the first). */
function exportStream(c: Context<HttpEnv>, deps: AppDeps, plan: ExportPlan): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const stop = new AbortController()
  const onClientGone = () => stop.abort()
  c.req.raw.signal.addEventListener('abort', onClientGone, { once: true })
  const call = { ...callOptions(c), signal: stop.signal }
  const view = resultsView(plan.dataset, plan.selection)
  let after: readonly (string | number | boolean | null)[] | undefined
  let columns: readonly string[] | undefined = plan.selection?.members
  let started = false
  const finish = () => c.req.raw.signal.removeEventListener('abort', onClientGone)
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stop.signal.aborted) return
      const batch = await deps.engine.exportBatch(plan.queryId, { after, limit: deps.options.exportBatchRows, ...(plan.engineFields ? { fields: plan.engineFields } : {}) }, call)
      if (stop.signal.aborted) return
      if (!batch.ok) {
        // The status is sent: a failed batch ends the body early, and the client sees a truncated file.
        finish()
        controller.error(new Error(`export ${plan.queryId}: ${batch.issues.map((i) => i.message).join(' ')}`))
        return
      }
      const records = await view(batch.value.records, deps, call)
      let text: string
      if (plan.format === 'ndjson') {
        text = records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '')
      } else {
        columns ??= records[0] ? Object.keys(records[0]) : Object.keys(resultRecordSchemas[plan.dataset].shape)
        const rows = records.map((r) => columns!.map((name) => csvCell(r[name])))
        text = stringify(started ? rows : [columns as string[], ...rows], { record_delimiter: 'windows' })
      }
      started = true
      if (text !== '') controller.enqueue(encoder.encode(text))
      if (batch.value.next === undefined) {
        finish()
        controller.close()
        return
      }
      after = batch.value.next
    },
    cancel() {
      finish()
      stop.abort()
    },
  }, { highWaterMark: 0 })
}

const recordLine = z.union(Object.values(resultRecordSchemas) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]])

export const exportRoutes: RouteModule = {
  specs: [{
    method: 'get',
    path: '/queries/{query_id}/export',
    summary: 'Export every record of a stored query (NDJSON or CSV)',
    description: 'Streams all records of the stored query in its sort order: NDJSON (one record per line, as POST /queries '
      + 'shows records) or CSV (RFC 4180, a header row, tags joined by `|`, nested values as JSON), by `format` or `Accept`. '
      + `Counts as one request per started ${EXPORT_ROWS_PER_REQUEST} rows, reserved before the first byte (all or none: `
      + 'a 429 when they do not fit); `X-Export-Rows` and `X-Export-Requests` say how many, and the X-Quota-* headers show '
      + 'the state after the reservation. Trial keys get a 403. `fields` applies as on GET /queries/{query_id}. '
      + 'See grammar-docs/guides/fields-and-export.md.',
    specSection: '4.15',
    pathParams: z.object({ query_id: z.string().describe('The id returned by POST /queries.') }),
    query: EXPORT_QUERY,
    response: recordLine,
    responseMediaTypes: {
      'application/x-ndjson': z.string().describe('One JSON record per line (a record of the query\'s dataset, as in POST /queries results).'),
      'text/csv': z.string().describe('RFC 4180 CSV with a header row of the record\'s members; tags joined by |.'),
    },
    authenticated: true,
  }],
  register(app, deps) {
    app.get('/queries/:query_id/export', (c) => exportQuery(c, deps))
  },
}
