/**
 * @module The typed API: filters, requests and records typed per dataset from the catalog, and a
 * typed entry to the engine (`typedEngine`).
 */
export type {
  DatasetRef, ResolveDataset, FieldsOf, FieldOf, FieldName, SortableField, NumericText, DateText, DateTimeText, EnumValue,
  FilterValue, OperatorHash, FieldCondition, ForeignCondition, Filter, SortDirection, SortClause, QueryRequest,
} from './filter.js'
export type { RecordValue, RecordOf, PickedRecord, PrimaryKeyOf, CompanyRecord, InvestorRecord, FundingRecord } from './records.js'
export { typedEngine, type TypedEngine, type QueryId, type TypedQueryEnvelope, type TypedListPage, type TypedStoreResult, type FieldsOption } from './engine.js'
export type { FacetField, FacetValueOf, TypedFacet, TypedFacetsResult } from './facets.js'
