/**
 * @module ventureql/internal: UNSTABLE. Helpers the repository's own tests, benches and tools use
 * (demo data, ingest classes, the reference evaluator, the catalog's builders, cache bookkeeping)
 * that are not part of the documented API: any release may change or remove them, semver does not
 * cover them. The stable API is the package root (`ventureql`); api-report/ventureql-internal.api.md
 * lists what is here.
 */
// The catalog's builders and lookups.
export {
  field, tagsField, dataset, integer, number, string, date, datetime, boolean, tags, enumOf,
  resolveDataset, datasetNamesAndAliases, getField, primaryKeyColumn, findRelation, isOperatorName, operatorsFor,
} from './catalog/index.js'
// The AST's factory and walker.
export { build, visitFilter, childrenOf, type FilterVisitor } from './ast/index.js'
export { ok, fail, issue, childPath, ISSUE_TEXT_LIMITS } from './errors/issue.js'
export { suggestionList, didYouMean } from './errors/did-you-mean.js'
export { stripPaths } from './ast/print.js'
export { querySchema, filterSchema } from './parse/index.js'
export { specifiedRules } from './check/index.js'
export { DEFAULT_PAGING } from './execute/index.js'
// Data versions: what caches are keyed by; a writer outside the engine's own loaders bumps it.
export { dataVersion, bumpDataVersion } from './store/open.js'
export { tablesToCopy } from './store/copy.js'
// Loading and generating data (the library side of `ventureql import` and `generate`).
export { Ingestor, type IngestOptions, type IngestSummary, type IngestReject, type IngestChanged, type RowCounts } from './store/ingest.js'
export { PostgresIngestor, PostgresLoadError, type IngestPostgresOptions } from './store/ingest-postgres.js'
export { generateRecords, todayUtc, type GenerateOptions } from './store/generate/generator.js'
export { generateInto, generateIntoDatabase, generateJsonl, generatedAsOf } from './store/generate/build.js'
export { createFixtureDatabase, FIXTURE_AS_OF, type FixtureOptions } from './store/generate/fixture.js'
// The reference evaluator: an SQL-free implementation of the language, for differential tests
// (test/properties/differential.test.ts shows how).
export * from './reference/index.js'
