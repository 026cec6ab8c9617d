/**
 * @module The typed entry to the engine: the same calls as `Engine` (the same pipeline, results
 * and issues), whose requests are `QueryRequest<D>` and whose results carry records of `D`.
 * `Engine` itself keeps taking `unknown`, for input that comes from outside the program (a request
 * body, a file); this wrapper is for queries a program writes.
 *
 * Why a wrapper and not an overload of `engine.query`: an overload with a fallback taking `unknown`
 * would accept every typo by falling through to it; a separate entry makes the typed call fail to
 * compile instead.
 *
 * @example
 * const db = typedEngine(createEngine({ database: 'ventureql.db' }))
 * const r = await db.query({ dataset: 'companies', filter: { stage: { in: ['a', 'b'] } }, sort: [{ employees: 'desc' }] })
 * if (r.ok) for (const c of r.value.results) console.log(c.name, c.stage)   // c: CompanyRecord
 */
import type { DatasetName } from '../catalog/index.js'
import type { CallOptions, Engine, ExplainResult, FacetOptions, ListPage, QueryEnvelope, StoreOptions, StoreResult } from '../engine.js'
import type { FacetField, TypedFacetsResult } from './facets.js'
import type { Result } from '../errors/issue.js'
import type { DatasetRef, FieldName, FieldsOf, QueryRequest, ResolveDataset } from './filter.js'
import type { PickedRecord, RecordOf } from './records.js'

declare const queryDataset: unique symbol

/**
 * A stored query's id, marked (in types only; at run time it is the string) with the dataset its
 * records belong to, so that `page(id)` knows their type. A plain string is accepted too, and
 * then the records are those of any dataset.
 */
export type QueryId<D extends DatasetName = DatasetName> = string & { readonly [queryDataset]: D }

/** The envelope of `query` and `page` (spec 2.14) with records of `D` (only the fields `F` and the primary key, when given). */
export type TypedQueryEnvelope<D extends DatasetName, F extends readonly string[] | undefined = undefined> = D extends DatasetName
  ? Omit<QueryEnvelope, 'query' | 'results' | 'query_id'> & {
    readonly query: Omit<QueryEnvelope['query'], 'dataset' | 'query_id'> & { readonly dataset: D; readonly query_id: QueryId<D> }
    readonly results: readonly PickedRecord<D, F>[]
    readonly query_id: QueryId<D>
  }
  : never

/** A page of `list` with records of `D` (only the fields `F` and the primary key, when given). */
export type TypedListPage<D extends DatasetName, F extends readonly string[] | undefined = undefined> = D extends DatasetName
  ? Omit<ListPage, 'dataset' | 'results'> & { readonly dataset: D; readonly results: readonly PickedRecord<D, F>[] }
  : never

/**
 * The fields to return (`fields`, an answer option: it does not change the query id): the records
 * are then typed with those fields and the primary key only.
 */
export interface FieldsOption<R extends DatasetRef, F extends readonly FieldName<R>[] | undefined> {
  readonly fields?: F
}

export type TypedStoreResult<D extends DatasetName> = Omit<StoreResult, 'query_id'> & { readonly query_id: QueryId<D> }

export interface TypedEngine {
  /** The engine underneath (for `records`, `access`, `stats`, and untyped calls). */
  readonly engine: Engine
  /** Parses, checks, stores and runs a query: its first (or requested) page. */
  query<R extends DatasetRef, const F extends readonly FieldName<R>[] | undefined = undefined>(
    request: QueryRequest<R> & FieldsOption<R, F>, options?: CallOptions & StoreOptions,
  ): Promise<Result<TypedQueryEnvelope<ResolveDataset<R>, F>>>
  /** Runs a query without storing it. */
  list<R extends DatasetRef, const F extends readonly FieldName<R>[] | undefined = undefined>(
    request: QueryRequest<R> & FieldsOption<R, F>, options?: CallOptions,
  ): Promise<Result<TypedListPage<ResolveDataset<R>, F>>>
  /** Stores a query without running it. */
  store<R extends DatasetRef>(request: QueryRequest<R>, options?: CallOptions & StoreOptions): Promise<Result<TypedStoreResult<ResolveDataset<R>>>>
  /** A page of a stored query: with an id from `query` or `store`, its records are typed for its dataset. */
  page<D extends DatasetName, const F extends readonly FieldName<D>[] | undefined = undefined>(
    queryId: QueryId<D>, paging?: { page?: number; per_page?: number } & FieldsOption<D, F>, options?: CallOptions,
  ): Promise<Result<TypedQueryEnvelope<D, F>>>
  page(queryId: string, paging?: { page?: number; per_page?: number }, options?: CallOptions): Promise<Result<TypedQueryEnvelope<DatasetName>>>
  /** The canonical form, id and SQL of a query. */
  explain<R extends DatasetRef>(request: QueryRequest<R>, options?: CallOptions): Promise<Result<ExplainResult>>
  /** The number of records a query selects. */
  count<R extends DatasetRef>(request: QueryRequest<R>, options?: CallOptions): Promise<Result<number>>
  /**
   * Facet counts of a query's records (`Engine.facets`): `fields` are the dataset's facetable
   * fields, and the result's `facets` has exactly those keys.
   */
  facets<R extends DatasetRef, const F extends readonly FacetField<R>[]>(
    request: QueryRequest<R>, fields: F, options?: CallOptions & FacetOptions,
  ): Promise<Result<TypedFacetsResult<ResolveDataset<R>, F[number] & keyof FieldsOf<ResolveDataset<R>> & string>>>
  /** Closes the engine underneath (`Engine.close`): running calls get `graceMs` to finish. */
  close(options?: { readonly graceMs?: number }): Promise<void>
}

/**
 * The typed entry over an engine. The calls go to the engine unchanged; only their types differ:
 * the records the engine returns are built from the catalog by `toRecord`, which the record types
 * (`./records.ts`) are derived from.
 */
export function typedEngine(engine: Engine): TypedEngine {
  // The casts below are the one place where the untyped results meet their types.
  return Object.freeze<TypedEngine>({
    engine,
    query: (request, options) => engine.query(request, options) as Promise<never>,
    list: (request, options) => engine.list(request, options) as Promise<never>,
    store: (request, options) => engine.store(request, options) as Promise<never>,
    page: (queryId: string, paging?: { page?: number; per_page?: number; fields?: readonly string[] }, options?: CallOptions) => engine.page(queryId, paging, options) as Promise<never>,
    explain: (request, options) => engine.explain(request, options),
    count: (request, options) => engine.count(request, options),
    facets: (request, fields, options) => engine.facets(request, fields, options) as Promise<never>,
    close: (options) => engine.close(options),
  })
}
