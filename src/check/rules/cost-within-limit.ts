/**
 * @module Rule: cost within limit. The filter's estimated worst-case cost (`../cost.ts`: row visits
 * per record of the queried dataset, as the plan compile builds it) is at most `maxCost`. Where
 * the structural limits bound the size of a request, this bounds what running it can cost: a
 * 380-byte filter once froze a server for good (grammar-docs/language.md, "Limits" and "Foreign").
 *
 * It runs after `requestWithinLimits`, which stops the check for trees too deep or too large to
 * walk, so the recursive estimate only ever sees a tree of at most `maxDepth` levels.
 */
import { describeHotspot, estimateCost, foreignCount } from '../cost.js'
import type { Rule } from '../context.js'

const formatted = (n: number): string => n.toLocaleString('en-US')

export const costWithinLimit: Rule = (context) => ({
  filter(root, dataset) {
    const max = context.limits.maxCost
    const estimate = estimateCost(root)
    if (estimate.total <= max) return
    const foreign = foreignCount(estimate.node)
    const holding = foreign > 0 && estimate.node.kind !== 'Foreign' ? `, with ${foreign} \`foreign\` conditions` : ''
    context.report({
      code: 'cost_exceeded',
      path: estimate.path,
      message:
        `The filter may visit up to ${formatted(estimate.total)} rows per ${dataset?.name ?? 'queried'} record; the limit (maxCost) is ${formatted(max)}. ` +
        `Most of that is ${describeHotspot(estimate.node)}${holding}. ` +
        'Narrow the query: fewer alternatives in an `or`, fewer `foreign` conditions side by side ' +
        '(those on one dataset can share one `foreign` with an `or` inside), or fewer conditions inside a `foreign`.',
      expected: `a cost of at most ${max}`,
      got: `${estimate.total}`,
    })
  },
})
