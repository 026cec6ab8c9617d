/**
 * @module Rule: cost within limit. The filter's estimated worst-case cost (`../cost.ts`: row visits
 * per record of the queried dataset, as the plan compile builds it) is at most `maxCost`. Where
 * the structural limits bound the size of a request, this bounds what running it can cost: a
 * 380-byte filter once froze a server for good (grammar-docs/language.md, "Limits" and "Foreign").
 *
 * The rule knows no data, so `maxCost` is a static bound; the pipeline, which knows the queried
 * dataset's row count, also refuses a filter whose predicted time is over the call's budget with
 * the same code (`timeCostIssue`, `execute/pipeline.ts`).
 *
 * It runs after `requestWithinLimits`, which stops the check for trees too deep or too large to
 * walk, so the recursive estimate only ever sees a tree of at most `maxDepth` levels.
 */
import { describeHotspot, estimateCost, foreignCount, type CostEstimate, type PredictedCost } from '../cost.js'
import type { Rule } from '../context.js'
import type { Issue } from '../../errors/issue.js'

const formatted = (n: number): string => n.toLocaleString('en-US')

const NARROW = 'Narrow the query: fewer alternatives in an `or`, fewer `foreign` conditions side by side ' +
  '(those on one dataset can share one `foreign` with an `or` inside), fewer conditions inside a `foreign`, or fewer nested `foreign` levels.'

function hotspot(estimate: CostEstimate): string {
  const foreign = foreignCount(estimate.node)
  const holding = foreign > 0 && estimate.node.kind !== 'Foreign' ? `, with ${foreign} \`foreign\` conditions` : ''
  return `Most of that is ${describeHotspot(estimate.node)}${holding}.`
}

export const costWithinLimit: Rule = (context) => ({
  filter(root, dataset) {
    const max = context.limits.maxCost
    const estimate = estimateCost(root)
    if (estimate.total <= max) return
    context.report({
      code: 'cost_exceeded',
      path: estimate.path,
      message:
        `The filter may visit up to ${formatted(estimate.total)} rows per ${dataset?.name ?? 'queried'} record; the limit (maxCost) is ${formatted(max)}. ` +
        `${hotspot(estimate)} ${NARROW}`,
      expected: `a cost of at most ${max}`,
      got: `${estimate.total}`,
    })
  },
})

/**
 * The issue of a filter whose predicted time on the data (`predictCost`) is over the call's time
 * budget: it would be stopped at the budget, so it is refused before it runs.
 */
export function timeCostIssue(estimate: CostEstimate, predicted: PredictedCost, budgetMs: number, dataset: string): Issue {
  return {
    code: 'cost_exceeded',
    path: estimate.path,
    message:
      `The filter is predicted to take about ${formatted(predicted.ms)} ms here (${formatted(predicted.units)} units per ${dataset} record, ` +
      `${formatted(predicted.rows)} records), over this call's time budget of ${formatted(budgetMs)} ms. ${hotspot(estimate)} ${NARROW}`,
    expected: `a predicted time of at most ${budgetMs} ms`,
    got: `${predicted.ms} ms`,
  }
}
