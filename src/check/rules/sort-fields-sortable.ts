/**
 * @module Rule: sort fields sortable. Each sort clause names a field of the dataset that can be
 * sorted on (not a tags field). See grammar-docs/language.md, "Sort".
 */
import { getField } from '../../catalog/index.js'
import { didYouMean, suggestionList } from '../../errors/did-you-mean.js'
import { childPath } from '../../errors/issue.js'
import { q, type Rule } from '../context.js'

export const sortFieldsSortable: Rule = (context) => ({
  sort(node, _index, dataset) {
    const path = childPath(node.path, node.field)
    const sortable = Object.values(dataset.fields).filter((f) => f.sortable).map((f) => f.name)
    const field = getField(dataset, node.field)
    if (!field) {
      const suggestions = suggestionList(node.field, Object.keys(dataset.fields))
      context.report({
        code: 'unknown_field',
        path,
        message: `Dataset ${q(dataset.name)} has no field ${q(node.field)} to sort on.${didYouMean(suggestions)}`,
        expected: `a sortable field of ${dataset.name}`,
        got: q(node.field),
        suggestions,
        allowed: sortable,
      })
    } else if (!field.sortable) {
      context.report({
        code: 'not_sortable',
        path,
        message: `Field ${q(field.name)} cannot be sorted on${field.type.kind === 'tags' ? ' (it holds several values)' : ''}.`,
        expected: `a sortable field of ${dataset.name}`,
        got: q(node.field),
        allowed: sortable,
      })
    }
  },
})
