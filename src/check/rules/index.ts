/**
 * @module The check rules, in the order they run (graphql-js's specifiedRules). Limits first, so
 * a hostile request stops the walk before anything else looks at it (the size limits, then the
 * estimated cost, which needs a tree of bounded size); then the request's names
 * (dataset, relations, fields, operators), then values, then sort. Each rule file cites the
 * grammar-docs/language.md section it enforces.
 */
import type { Rule } from '../context.js'
import { betweenBoundsOrdered } from './between-bounds-ordered.js'
import { costWithinLimit } from './cost-within-limit.js'
import { enumValuesKnown } from './enum-values-known.js'
import { foreignRelationExists } from './foreign-relation-exists.js'
import { knownDataset } from './known-dataset.js'
import { knownFields } from './known-fields.js'
import { noAccidentalMatchAll } from './no-accidental-match-all.js'
import { operatorAllowedForFieldType } from './operator-allowed-for-field-type.js'
import { pageWithinLimits } from './page-within-limits.js'
import { requestWithinLimits } from './request-within-limits.js'
import { sortFieldsSortable } from './sort-fields-sortable.js'
import { sortFieldsUnique } from './sort-fields-unique.js'
import { valuesFitFieldType } from './values-fit-field-type.js'

export const specifiedRules: readonly Rule[] = Object.freeze([
  requestWithinLimits, // language.md, "Limits"
  costWithinLimit, // language.md, "Limits" and "Foreign"
  knownDataset, // language.md, "Request"
  pageWithinLimits, // language.md, "Paging"
  noAccidentalMatchAll, // language.md, "Empty input"
  foreignRelationExists, // language.md, "Foreign"
  knownFields, // language.md, "Filters"
  operatorAllowedForFieldType, // language.md, "Operators"
  valuesFitFieldType, // language.md, "Values" and "Null"
  enumValuesKnown, // language.md, "Enums"
  betweenBoundsOrdered, // language.md, "Operators"
  sortFieldsSortable, // language.md, "Sort"
  sortFieldsUnique, // language.md, "Sort"
])

export {
  betweenBoundsOrdered, costWithinLimit, enumValuesKnown, foreignRelationExists, knownDataset, knownFields, noAccidentalMatchAll,
  operatorAllowedForFieldType, pageWithinLimits, requestWithinLimits, sortFieldsSortable, sortFieldsUnique, valuesFitFieldType,
}
