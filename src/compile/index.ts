/**
 * @module The compile stage: a checked, normal-form query to Kysely statements. See
 * `predicates.ts` (filters), `relations.ts` (foreign), `tags.ts`, `text.ts`, `sort.ts`, `page.ts`
 * (keyset seek) and the dialect hooks in `dialects/`.
 */
export type { SqlDialect, ListElementKind } from './dialect.js'
export { sqliteDialect } from './dialects/sqlite.js'
export { postgresDialect } from './dialects/postgres.js'
export { compileFilter } from './predicates.js'
export { facetQuery, type FacetRow } from './facets.js'
export { planQuery, recordsByIdsQuery, tagsAlias, type QueryPlan, type KeysOptions } from './plan.js'
export { prefersSortWalk, walkFactorFor, UNINDEXABLE_WALK_FACTOR, WALK_FACTOR, COVERED_WALK_FACTOR, type Selectivity } from './steer.js'
export { sortKeys, type SortKey } from './sort.js'
export { seekAfter, seekRanges, type Boundary } from './page.js'
export { likePattern, foldAscii, escapeLike } from './text.js'

import type { DialectName } from '../store/schema/column-types.js'
import type { SqlDialect } from './dialect.js'
import { postgresDialect } from './dialects/postgres.js'
import { sqliteDialect } from './dialects/sqlite.js'

export const DIALECTS: Readonly<Record<DialectName, SqlDialect>> = Object.freeze({ sqlite: sqliteDialect, postgres: postgresDialect })
