/**
 * @module Facet names and results typed per dataset, from the catalog's `facet` kinds: a facet on
 * an unfacetable field fails to compile, and the result has exactly the named facets as keys, each
 * value typed by its field (an enum's values, a year as text, any text for tags and country).
 */
import type { DatasetName } from '../catalog/index.js'
import type { Facet, FacetsResult } from '../execute/pipeline.js'
import type { FacetValue } from '../execute/facets.js'
import type { DatasetRef, FieldsOf, ResolveDataset } from './filter.js'

/** The fields of a dataset that facets may name (those whose catalog definition has a `facet` kind). */
export type FacetField<R extends DatasetRef> = {
  [F in keyof FieldsOf<ResolveDataset<R>> & string]: FieldsOf<ResolveDataset<R>>[F] extends { readonly facet: 'value' | 'year' } ? F : never
}[keyof FieldsOf<ResolveDataset<R>> & string]

/** The values a facet of field `F` of `D` lists: an enum's values (as stored), a year `YYYY`, else text. */
export type FacetValueOf<D extends DatasetName, F extends keyof FieldsOf<D>> =
  FieldsOf<D>[F] extends { readonly facet: 'year' } ? `${number}`
    : FieldsOf<D>[F] extends { readonly type: { readonly kind: 'enum'; readonly values: readonly (infer V)[] } } ? V & string
      : string

/** A facet whose values are typed. */
export type TypedFacet<V extends string> = Omit<Facet, 'values'> & { readonly values: readonly (Omit<FacetValue, 'value'> & { readonly value: V })[] }

/** `facets`' result with one typed facet per named field. */
export type TypedFacetsResult<D extends DatasetName, F extends keyof FieldsOf<D> & string> = Omit<FacetsResult, 'dataset' | 'facets'> & {
  readonly dataset: D
  readonly facets: { readonly [K in F]: TypedFacet<FacetValueOf<D, K>> }
}
