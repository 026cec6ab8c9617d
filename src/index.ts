/**
 * @module ventureql: the query engine. Parse, check, compile and execute structured queries over
 * company, investor and funding data.
 *
 * This entry point is the documented, stable API (grammar-docs/guides/embedding.md and
 * grammar-docs/guides/api.md); api-report/ventureql.api.md pins it. Helpers that tests, benches
 * and tools use but that may change in any release are under `ventureql/internal` (src/internal.ts).
 */
// The catalog: datasets, fields, relations and operators, and the types the typed API derives from them.
export {
  datasets, relations, OPERATORS, OPERATOR_NAMES, DATASET_NAMES, CATALOG_VERSION, LOGICAL_KEYS, FOREIGN_MATCH_MODES,
  STAGE, INVESTOR_TYPE, SERIES,
  type Catalog, type DatasetName, type DatasetDef, type FieldDef, type FieldType, type FieldTypeKind, type EnumType, type WireForm,
  type TagStorage, type SortClauseDef, type RelationDef, type RelatedDataset, type FieldOptions, type TypedFieldDef, type FieldDefOf,
  type FacetKind, type FacetOf, type TypedDatasetDef, type OperatorName, type OperatorDef, type OperandShape, type OperatorTable, type LogicalKey, type ForeignMatch,
} from './catalog/index.js'
// The AST that parseQuery and parseFilter produce.
export type {
  Scalar, MatchAllNode, AndNode, OrNode, NotNode, ForeignNode, ConditionNode, ConditionOf, FilterNode, FilterNodeKind, SortNode, QueryNode,
} from './ast/index.js'
// Issues: what every call answers instead of throwing.
export type { Issue, Result } from './errors/issue.js'
export { ISSUE_CODES, type IssueCode } from './errors/codes.js'
export { formatIssues, issuesSummary, toProblem, type Problem } from './errors/format.js'
// The stages, for other front-ends.
export { printFilter, printQuery, type PathlessFilter } from './ast/print.js'
export { parseQuery, parseFilter } from './parse/index.js'
export { checkQuery, checkFilter, type CheckedQuery, type CheckedSort, type Rule, type RuleVisitor } from './check/index.js'
export { DEFAULT_LIMITS, resolveLimits, type Limits } from './check/limits.js'
export { DIALECTS, sqliteDialect, postgresDialect, planQuery, compileFilter, type SqlDialect, type QueryPlan, type SortKey, type Boundary } from './compile/index.js'
export { QUERY_VERSION, LANGUAGE_VERSION, canonicalQuery, canonicalJson, queryIdOf, type PagingPolicy, type CanonicalQuery, type CanonicalFilter, type ResultRecord } from './execute/index.js'
// The engine, its typed entry and the errors its calls reject with.
export {
  createEngine,
  DeferredKeyCheck, KeyRefusedError, QueryTimeoutError, QueryCancelledError, EngineClosedError, InvalidInputError, TenantBusyError,
  type KeyCheckRequest, type CallOptions, type StoreOptions, type FairnessOptions,
  type Engine, type EngineOptions, type StoreCallOptions, type ListPage, type ExportBatch, type ExportBatchRequest, type StoredPaging, type QueryEnvelope, type PageMeta, type StoreResult, type ExplainResult, type EngineStats, type DatabaseStatus,
  type FacetsResult, type Facet, type FacetValue, type FacetOptions, type ListPageWithoutTotal, type QueryPageWithoutTotal,
} from './engine.js'
export * from './typed/index.js'
export { DEFAULT_MEMORY_BUDGET_BYTES, type MemoryPlan } from './store/memory-budget.js'
// Databases: open, copy to PostgreSQL, build the search and similarity indexes.
export {
  openDatabase,
  type VentureDb, type SqliteVentureDb, type PostgresVentureDb, type OpenOptions, type SqliteStateFile,
} from './store/open.js'
export { StateFileError, stateFileOf, type StateFileProblem } from './store/state-file.js'
export { backupDatabase, type BackupSummary } from './store/backup.js'
export { openPostgres, PostgresConnectionError, type OpenPostgresOptions } from './store/open-postgres.js'
// The drivers' objects as the public types name them (restated: consumers need no @types/better-sqlite3 or @types/pg).
export type {
  BetterSqliteDatabase, BetterSqliteStatement, BetterSqliteTransaction, BetterSqliteRunResult, BetterSqliteColumn,
  BetterSqliteRegistrationOptions, PgClient, PgPool, PgQueryResult,
} from './store/driver-types.js'
export { copyToPostgres, type CopyOptions, type CopySummary, type CopiedTable } from './store/copy.js'
export { refreshPostgresSearchIndex, type SearchRefreshSummary } from './store/search-index-postgres.js'
export { buildSimilarIndex, type SimilarIndexOptions, type SimilarIndexSummary } from './records/similar-index-build.js'
