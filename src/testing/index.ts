/**
 * @module ventureql/testing: property-based testing of the filter language for users
 * (grammar-docs/guides/testing.md). fast-check arbitraries of filters, queries, sorts, list
 * parameters and import lines, typed per dataset and derived from the catalog; the reference
 * evaluator and a way to load any ventureql database into it; and `checkConformance`, the laws of
 * the language run against any implementation. fast-check is a peer dependency of this entry
 * point only: the package root never imports it. api-report/ventureql-testing.api.md pins it.
 */
export {
  filterArbitrary, queryArbitrary, sortArbitrary, permuteFilter, prng,
  type FilterArbitraryOptions, type FilterJson, type SortJson,
} from './arbitraries.js'
export { listParamsArbitrary, type ListParamsArbitraryOptions, type ListEndpoint } from './list-params.js'
export { recordArbitrary, importLinesArbitrary, RECORD_TYPE_OF, type ImportLine, type RecordArbitraryOptions, type ImportLinesOptions } from './records.js'
export {
  checkConformance, ConformanceError, CONFORMANCE_LAWS,
  type ConformanceTarget, type ConformanceQuery, type ConformanceAnswer, type ConformanceLaw, type ConformanceOptions,
  type ConformanceReport, type LawOutcome, type ConformanceFailure,
} from './conformance.js'
// The reference evaluator and its data.
export {
  evaluate, referenceRows, sortRecords, compareValues, foldAscii, type SortSpec,
  loadSnapshot, createSnapshot, distinctValues, toFieldValue,
  type Snapshot, type DatasetSnapshot, type SnapshotRow, type SnapshotInput, type SnapshotSource, type RecordInput, type LinkRow, type LoadSnapshotOptions,
} from '../reference/index.js'
// The seeded fixture the repository's own property tests run on.
export { createFixtureDatabase, FIXTURE_AS_OF, type FixtureOptions } from '../store/generate/fixture.js'
