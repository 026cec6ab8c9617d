/**
 * @module Rule: known dataset. The request names a dataset of the catalog (or an alias, matched
 * case-insensitively). See grammar-docs/language.md, "Request".
 */
import { DATASET_NAMES, datasetNamesAndAliases, resolveDataset } from '../../catalog/index.js'
import { didYouMean, suggestionList } from '../../errors/did-you-mean.js'
import { previewValue } from '../../errors/format.js'
import { q, type Rule } from '../context.js'

/** Did-you-mean over names and aliases, reported as canonical names (`compnay` suggests `companies`). */
export function suggestDatasets(name: string): string[] {
  const canonical = suggestionList(name, datasetNamesAndAliases()).map((s) => resolveDataset(s)?.name ?? s)
  return [...new Set(canonical)]
}

export const knownDataset: Rule = (context) => ({
  query(query) {
    if (resolveDataset(query.dataset)) return
    const suggestions = suggestDatasets(query.dataset)
    context.report({
      code: 'unknown_dataset',
      path: '/dataset',
      message: `Unknown dataset ${q(query.dataset)}; expected ${DATASET_NAMES.join(', ')}.${didYouMean(suggestions)}`,
      expected: `one of: ${DATASET_NAMES.join(', ')}`,
      got: previewValue(query.dataset),
      suggestions,
      allowed: DATASET_NAMES,
    })
  },
})
