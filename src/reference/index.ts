/**
 * @module The reference evaluator: an in-memory, SQL-free implementation of the filter
 * language, for differential property tests of the engine and for test authors' own suites.
 */
export * from './snapshot.js'
export { evaluate, sortRecords, referenceRows, compareValues, foldAscii, type SortSpec } from './evaluate.js'
export { referenceFacets, type ReferenceFacet, type ReferenceFacets } from './facets.js'
