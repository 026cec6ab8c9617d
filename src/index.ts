/**
 * @module ventureql: the query engine. Parse, check, compile and execute structured queries over
 * company, investor and funding data.
 */
export * from './catalog/index.js'
export * from './ast/index.js'
export * from './errors/issue.js'
export { ISSUE_CODES, type IssueCode } from './errors/codes.js'
export { formatIssues, issuesSummary, toProblem, type Problem } from './errors/format.js'
export { suggestionList, didYouMean } from './errors/did-you-mean.js'
export { printFilter, printQuery, stripPaths, type PathlessFilter } from './ast/print.js'
export { parseQuery, parseFilter, querySchema, filterSchema } from './parse/index.js'
export { checkQuery, checkFilter, specifiedRules, type CheckedQuery, type CheckedSort, type Rule, type RuleVisitor } from './check/index.js'
export { DEFAULT_LIMITS, resolveLimits, type Limits } from './check/limits.js'
export {
  createEngine,
  DeferredKeyCheck, InvalidInputError, KeyRefusedError, type KeyCheckRequest, TenantBusyError, type FairnessOptions,
  type Engine, type EngineOptions, type StoreCallOptions, type ListPage, type QueryEnvelope, type PageMeta, type StoreResult, type ExplainResult, type EngineStats, type DatabaseStatus,
} from './engine.js'
// Filters, requests and records typed per dataset from the catalog; `typedEngine` is the typed entry.
export * from './typed/index.js'
export { DIALECTS, sqliteDialect, postgresDialect, planQuery, compileFilter, type SqlDialect, type QueryPlan, type SortKey, type Boundary } from './compile/index.js'
export { QUERY_VERSION, LANGUAGE_VERSION, canonicalQuery, canonicalJson, queryIdOf, DEFAULT_PAGING, type PagingPolicy, type CanonicalQuery, type CanonicalFilter, type ResultRecord } from './execute/index.js'
export {
  openDatabase, dataVersion, bumpDataVersion,
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
export { copyToPostgres, tablesToCopy, type CopyOptions, type CopySummary, type CopiedTable } from './store/copy.js'
export { refreshPostgresSearchIndex, type SearchRefreshSummary } from './store/search-index-postgres.js'
export { buildSimilarIndex, type SimilarIndexOptions, type SimilarIndexSummary } from './records/similar-index-build.js'
export { Ingestor, type IngestOptions, type IngestSummary, type IngestReject, type IngestChanged, type RowCounts } from './store/ingest.js'
export { PostgresIngestor, PostgresLoadError, type IngestPostgresOptions } from './store/ingest-postgres.js'
export { generateRecords, todayUtc, type GenerateOptions } from './store/generate/generator.js'
export { generateInto, generateIntoDatabase, generateJsonl, generatedAsOf } from './store/generate/build.js'
export { createFixtureDatabase, FIXTURE_AS_OF, type FixtureOptions } from './store/generate/fixture.js'
// The reference evaluator: an SQL-free implementation of the language, for test authors' own
// differential tests (see test/properties/differential.test.ts for how ours use it).
export * from './reference/index.js'
