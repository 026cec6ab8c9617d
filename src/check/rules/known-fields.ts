/**
 * @module Rule: known fields. Every condition names a field of the dataset in scope (inside
 * `foreign`, the foreign dataset). See grammar-docs/language.md, "Filters".
 */
import { didYouMean, suggestionList } from '../../errors/did-you-mean.js'
import { fieldPathOf, q, type Rule } from '../context.js'

export const knownFields: Rule = (context) => {
  // Several operators on one unknown field are one mistake, reported once.
  const reported = new Set<string>()
  return {
    condition(node, { dataset, field }) {
      if (!dataset || field) return
      const path = fieldPathOf(node)
      if (reported.has(path)) return
      reported.add(path)
      const names = Object.keys(dataset.fields)
      const suggestions = suggestionList(node.field, names)
      context.report({
        code: 'unknown_field',
        path,
        message: `Dataset ${q(dataset.name)} has no field ${q(node.field)}.${didYouMean(suggestions)}`,
        expected: `a field of ${dataset.name}`,
        got: q(node.field),
        suggestions,
        allowed: names,
      })
    },
  }
}
