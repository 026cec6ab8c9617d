/**
 * @module ventureql: the query engine. Parse, check, compile and execute structured queries over
 * company, investor and funding data.
 */
export * from './catalog/index.js'
export * from './ast/index.js'
export * from './errors/issue.js'
export { ISSUE_CODES, type IssueCode } from './errors/codes.js'
export {
  createEngine,
  type Engine, type EngineOptions, type QueryEnvelope, type PageMeta, type StoreResult, type ExplainResult,
} from './engine.js'
export { DIALECTS, sqliteDialect, postgresDialect, planQuery, compileFilter, type SqlDialect, type QueryPlan, type SortKey, type Boundary } from './compile/index.js'
export { QUERY_VERSION, LANGUAGE_VERSION, canonicalQuery, canonicalJson, queryIdOf, type CanonicalQuery, type CanonicalFilter, type ResultRecord } from './execute/index.js'
