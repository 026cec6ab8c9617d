/**
 * @module The stable issue codes. Clients may switch on them; never rename one. Each code's
 * meaning is documented in grammar-docs/reference/error-codes.md (generated from this table).
 */

export const ISSUE_CODES = {
  // Structure of the request (parse stage)
  invalid_json: 'The request body is not valid JSON.',
  invalid_type: 'A value has the wrong JSON type (for example an array where a filter hash is expected).',
  missing_key: 'A required key is missing (for example `dataset`).',
  unknown_key: 'A key that the request envelope or a `foreign` hash does not accept.',
  unknown_operator: 'An operator name that the language does not define.',
  empty_filter: 'An empty filter hash `{}` below the top level, or an empty operator hash.',
  empty_list: 'An empty `and`, `or`, `in`, `nin`, `has_*` list.',
  // Meaning of the request (check stage)
  unknown_dataset: 'A dataset name that the catalog does not define.',
  unknown_field: 'A field name that the dataset in scope does not have.',
  operator_not_allowed: 'An operator that the field\'s type does not support.',
  invalid_value: 'A value that does not fit the field\'s type or the operator\'s operand.',
  unknown_enum_value: 'A value that is not one of the field\'s enumerated values.',
  invalid_range: 'A `between` whose lower bound exceeds its upper bound.',
  no_relation: 'A `foreign` to a dataset that the dataset in scope has no relation to.',
  not_sortable: 'A sort on a field that cannot be sorted on.',
  not_facetable: 'A facet on a field that cannot be counted per value (only enum, tags, country and date fields can; see guides/facets.md).',
  invalid_sort: 'A sort clause that is not a one-key hash with `asc` or `desc`.',
  invalid_page: 'A `page` or `per_page` that is not a positive integer within the limits.',
  limit_exceeded: 'The request exceeds a configured limit (depth, node count, list length, body size, per_page).',
  cost_exceeded: 'The filter\'s estimated worst-case cost per record exceeds the `maxCost` limit (see language.md, Limits); narrow the filter.',
  too_many_issues: 'More issues were found than are reported; fix these and retry.',
  // Query parameters of the HTTP server's GET endpoints
  unknown_parameter: 'A query parameter name the endpoint does not take that is a near miss of one it does (a misspelling such as `contry`); names far from every parameter are ignored (see list-parameters.md, How parameters combine).',
  // Stored queries (execute stage)
  unknown_query: 'No stored query has this id.',
  query_outdated: 'The stored query was validated under an older language or catalog version and no longer checks.',
  // Running a query (execute stage)
  query_timeout: 'The query ran past its time budget (or waited that long for a free worker) and was stopped; narrow it or retry later.',
  tenant_busy: 'The caller has too many queries waiting, or used its query time per minute (HTTP 429 with Retry-After); see fairness.md.',
  query_cancelled: 'The caller cancelled the query (its AbortSignal fired, or the HTTP client went away) and it was stopped.',
} as const

export type IssueCode = keyof typeof ISSUE_CODES
