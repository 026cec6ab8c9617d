/**
 * @module The `X-Query-Cost` header of every response that ran a filter (POST /queries, GET
 * /queries/{query_id}, GET /companies, GET /fundings): the cost the check held the request to, as an
 * RFC 8941 dictionary, `units=<units per record>, rows=<records>, ms=<predicted ms>`
 * (check/cost.ts; grammar-docs/language.md, "Limits"), so a client sees how close a request came to
 * being refused and can narrow it before it is.
 */
import type { PredictedCost } from '../check/cost.js'

export const QUERY_COST_HEADER = 'X-Query-Cost'

export function queryCostHeader(cost: PredictedCost): string {
  return `units=${cost.units}, rows=${cost.rows}, ms=${cost.ms}`
}
