/**
 * @module Rule: foreign relation exists. A `foreign` names a known dataset, and the catalog has a
 * relation from the dataset in scope to it. See grammar-docs/language.md, "Foreign".
 */
import { DATASET_NAMES, findRelation, relations } from '../../catalog/index.js'
import { didYouMean } from '../../errors/did-you-mean.js'
import { childPath } from '../../errors/issue.js'
import { q, type Rule } from '../context.js'
import { suggestDatasets } from './known-dataset.js'

export const foreignRelationExists: Rule = (context) => ({
  foreign(node, from, to) {
    const path = childPath(node.path, 'dataset')
    if (!to) {
      const suggestions = suggestDatasets(node.dataset)
      context.report({
        code: 'unknown_dataset',
        path,
        message: `Unknown dataset ${q(node.dataset)} in \`foreign\`; expected ${DATASET_NAMES.join(', ')}.${didYouMean(suggestions)}`,
        expected: `one of: ${DATASET_NAMES.join(', ')}`,
        got: q(node.dataset),
        suggestions,
        allowed: DATASET_NAMES,
      })
      return
    }
    if (!from || findRelation(from.name, to.name)) return
    const reachable = relations.filter((r) => r.from === from.name).map((r) => r.to)
    context.report({
      code: 'no_relation',
      path,
      message: `Dataset ${q(from.name)} has no relation to ${q(to.name)}; from ${from.name}, \`foreign\` reaches ${reachable.join(' and ')}.`,
      expected: `one of: ${reachable.join(', ')}`,
      got: q(node.dataset),
      allowed: reachable,
    })
  },
})
