/**
 * @module The golden cases shared by the SQLite and PostgreSQL golden tests: every operator,
 * and/or/not, each foreign mode (direct and link relations, nested), sort, keyset seek and count.
 * Filters are normal form, built with the AST factory (the checker's output shape).
 */
import { and, condition as c, foreign, matchAll, not, or } from '../../src/ast/factory.js'
import type { FilterNode } from '../../src/ast/nodes.js'
import type { DatasetName } from '../../src/catalog/index.js'
import type { Boundary } from '../../src/compile/index.js'

export interface GoldenCase {
  readonly name: string
  readonly dataset: DatasetName
  readonly filter: FilterNode
  readonly sort?: readonly [string, 'asc' | 'desc'][]
  readonly after?: Boundary
  /** Compile the count query instead of the keys query. */
  readonly count?: boolean
  /** Compile the keys query as a walk of the first sort key's index (compile/steer.ts). */
  readonly walk?: boolean
}

const p = '/filter'

export const FILTER_CASES: readonly GoldenCase[] = [
  { name: 'match all', dataset: 'companies', filter: matchAll() },
  { name: 'eq integer', dataset: 'investors', filter: c('portfolio_size', 'eq', 10, p) },
  { name: 'eq string', dataset: 'investors', filter: c('name', 'eq', 'Acme Ventures', p) },
  { name: 'eq enum', dataset: 'investors', filter: c('type', 'eq', 'vc', p) },
  { name: 'eq boolean binds 0/1', dataset: 'companies', filter: c('has_mobile', 'eq', true, p) },
  { name: 'eq on non-nullable primary key', dataset: 'companies', filter: c('id', 'eq', 7, p) },
  { name: 'ne (sugar) is the null-safe complement of eq', dataset: 'investors', filter: c('type', 'ne', 'vc', p) },
  { name: 'Not(eq) on a nullable column', dataset: 'investors', filter: not(c('type', 'eq', 'vc', p), p) },
  { name: 'Not(eq) on a non-nullable column', dataset: 'companies', filter: not(c('id', 'eq', 7, p), p) },
  { name: 'gt', dataset: 'companies', filter: c('employees', 'gt', 50, p) },
  { name: 'gte', dataset: 'investors', filter: c('portfolio_size', 'gte', 10, p) },
  { name: 'lt number', dataset: 'companies', filter: c('momentum_score', 'lt', -1.5, p) },
  { name: 'lte date', dataset: 'companies', filter: c('last_funding_date', 'lte', '2020-01-31', p) },
  { name: 'between', dataset: 'companies', filter: c('employees', 'between', [50, 200], p) },
  { name: 'in one value is =', dataset: 'companies', filter: c('country', 'in', ['USA'], p) },
  { name: 'in string list as one JSON parameter', dataset: 'companies', filter: c('stage', 'in', ['a', 'b', 'c'], p) },
  { name: 'in integer list', dataset: 'companies', filter: c('employees', 'in', [1, 2, 3], p) },
  { name: 'in number list', dataset: 'companies', filter: c('svc_score', 'in', [1.5, 2], p) },
  { name: 'in boolean list', dataset: 'companies', filter: c('has_ios_store', 'in', [true, false], p) },
  { name: 'nin (sugar)', dataset: 'companies', filter: c('stage', 'nin', ['a', 'b'], p) },
  { name: 'is_null true', dataset: 'companies', filter: c('state', 'is_null', true, p) },
  { name: 'is_null false', dataset: 'companies', filter: c('state', 'is_null', false, p) },
  { name: 'contains escapes % _ and \\', dataset: 'companies', filter: c('name', 'contains', 'A%b_C\\d', p) },
  { name: 'starts_with folds ASCII case', dataset: 'companies', filter: c('name', 'starts_with', 'ACME', p) },
  { name: 'ends_with', dataset: 'companies', filter: c('website', 'ends_with', '.io', p) },
  { name: 'has_any one value', dataset: 'companies', filter: c('industries', 'has_any', ['Fintech'], p) },
  { name: 'has_any list', dataset: 'companies', filter: c('industries', 'has_any', ['Fintech', 'Health'], p) },
  { name: 'has_all', dataset: 'companies', filter: c('keywords', 'has_all', ['ai', 'saas', 'ai'], p) },
  { name: 'has_none (sugar)', dataset: 'companies', filter: c('industries', 'has_none', ['Fintech', 'Health'], p) },
  { name: 'Not(has_any)', dataset: 'companies', filter: not(c('industries', 'has_any', ['Fintech'], p), p) },
  { name: 'is_empty true', dataset: 'companies', filter: c('business_models', 'is_empty', true, p) },
  { name: 'is_empty false', dataset: 'companies', filter: c('business_models', 'is_empty', false, p) },
  { name: 'eq on tags is has', dataset: 'investors', filter: c('industries', 'eq', 'Fintech', p) },
  {
    name: 'and/or',
    dataset: 'companies',
    filter: and([c('country', 'eq', 'USA', p), or([c('stage', 'eq', 'a', p), c('employees', 'gte', 100, p)], p)], p),
  },
  {
    name: 'not over or (null-safe)',
    dataset: 'companies',
    filter: not(or([c('stage', 'eq', 'a', p), c('employees', 'gte', 100, p)], p), p),
  },
  { name: 'not not', dataset: 'companies', filter: not(not(c('stage', 'eq', 'a', p), p), p) },
  {
    name: 'foreign any through a link table (spec example)',
    dataset: 'investors',
    filter: and([c('portfolio_size', 'gte', 10, p), foreign('companies', c('industries', 'has_any', ['Fintech'], p), 'any', p)], p),
  },
  { name: 'foreign none', dataset: 'investors', filter: foreign('companies', c('stage', 'eq', 'a', p), 'none', p) },
  { name: 'foreign all', dataset: 'investors', filter: foreign('companies', c('stage', 'eq', 'a', p), 'all', p) },
  { name: 'foreign direct (companies → fundings)', dataset: 'companies', filter: foreign('fundings', c('amount', 'gte', 1000000, p), 'any', p) },
  { name: 'foreign direct (fundings → companies)', dataset: 'fundings', filter: foreign('companies', c('country', 'eq', 'USA', p), 'any', p) },
  // Inside another foreign, each is a set (compile/relations.ts).
  { name: 'nested foreign any: semi-join IN (link relation)', dataset: 'companies', filter: foreign('investors', foreign('companies', c('stage', 'eq', 'a', p), 'any', p), 'any', p) },
  { name: 'nested foreign none: anti-join', dataset: 'companies', filter: foreign('investors', foreign('companies', c('stage', 'eq', 'a', p), 'none', p), 'any', p) },
  { name: 'nested foreign all: IN related and not IN related failing the filter', dataset: 'companies', filter: foreign('investors', foreign('companies', c('stage', 'eq', 'a', p), 'all', p), 'any', p) },
  { name: 'nested foreign direct (→ fundings): set without NULL keys, two-valued', dataset: 'investors', filter: foreign('companies', not(foreign('fundings', c('amount', 'gte', 1000000, p), 'any', p), p), 'any', p) },
  { name: 'nested foreign direct (fundings → companies): three-valued under not', dataset: 'investors', filter: foreign('fundings', not(foreign('companies', c('country', 'eq', 'USA', p), 'any', p), p), 'any', p) },
  { name: 'nested foreign all over a direct relation', dataset: 'investors', filter: foreign('companies', foreign('fundings', c('amount', 'gte', 1000000, p), 'all', p), 'any', p) },
  {
    name: 'nested foreign gets fresh aliases',
    dataset: 'investors',
    filter: foreign('companies', foreign('fundings', c('series', 'eq', 'seed', p), 'any', p), 'any', p),
  },
  {
    name: 'chain of nested foreign: a probe at the top over one set per level, answered from the link rows',
    dataset: 'companies',
    filter: foreign('investors', foreign('companies', foreign('investors', c('name', 'eq', 'no-such-name', p), 'any', p), 'any', p), 'any', p),
  },
  {
    name: 'chain with none and all inside: anti-join and all as sets',
    dataset: 'companies',
    filter: foreign('investors', and([foreign('companies', c('stage', 'eq', 'a', p), 'none', p), foreign('fundings', c('series', 'eq', 'seed', p), 'all', p)], p), 'any', p),
  },
  {
    name: 'tags inside a set drive it (no + mark)',
    dataset: 'companies',
    filter: foreign('investors', foreign('companies', c('industries', 'has_any', ['Fintech'], p), 'none', p), 'any', p),
  },
  {
    name: 'wide inner filter: a set, not a probe',
    dataset: 'companies',
    filter: foreign('investors', or(['a', 'b', 'c', 'd', 'e'].map((n) => c('name', 'eq', n, p)), p), 'any', p),
  },
  {
    name: 'more than four top-level foreign: all sets',
    dataset: 'companies',
    filter: and(['a', 'b', 'c', 'd', 'e'].map((n) => foreign('investors', c('name', 'eq', n, p), 'any', p)), p),
  },
  {
    name: 'or of foreign any on one dataset merges into one',
    dataset: 'companies',
    filter: or([foreign('investors', c('name', 'eq', 'a', p), 'any', p), c('stage', 'eq', 'a', p), foreign('investors', c('name', 'eq', 'b', p), 'any', p)], p),
  },
  {
    name: 'and of foreign none and not any on one dataset merges into one none',
    dataset: 'companies',
    filter: and([foreign('investors', c('name', 'eq', 'a', p), 'none', p), not(foreign('investors', c('type', 'eq', 'vc', p), 'any', p), p)], p),
  },
  {
    name: 'and of foreign all on one dataset merges into one all',
    dataset: 'investors',
    filter: and([foreign('companies', c('stage', 'eq', 'a', p), 'all', p), foreign('companies', c('country', 'eq', 'USA', p), 'all', p)], p),
  },
  {
    name: 'foreign any pinned by an identifying field: semi-join IN (link relation)',
    dataset: 'companies',
    filter: foreign('investors', c('svc_slug', 'eq', 'acme-ventures', p), 'any', p),
  },
  {
    name: 'foreign any pinned by primary key: semi-join IN answered from the link rows',
    dataset: 'fundings',
    filter: foreign('investors', c('investor_id', 'in', [1, 2, 3], p), 'any', p),
  },
  {
    name: 'foreign any pinned by an identifying field: semi-join IN (direct relation, three-valued under not)',
    dataset: 'fundings',
    filter: not(foreign('companies', and([c('website', 'eq', 'acme.com', p), c('country', 'eq', 'USA', p)], p), 'any', p), p),
  },
  {
    name: 'foreign any pinned in every branch of an or: semi-join',
    dataset: 'companies',
    filter: and([c('country', 'eq', 'USA', p), foreign('investors', or([c('svc_slug', 'eq', 'a', p), c('investor_id', 'in', [1, 2], p)], p), 'any', p)], p),
  },
  {
    name: 'foreign none pinned by an identifying field stays NOT EXISTS',
    dataset: 'companies',
    filter: foreign('investors', c('svc_slug', 'eq', 'acme-ventures', p), 'none', p),
  },
  {
    name: 'sibling foreigns on the same dataset',
    dataset: 'companies',
    filter: and([foreign('investors', c('type', 'eq', 'vc', p), 'any', p), foreign('investors', c('type', 'eq', 'angel', p), 'none', p)], p),
  },
]

export const SORT_CASES: readonly GoldenCase[] = [
  { name: 'default: primary key only', dataset: 'companies', filter: matchAll() },
  { name: 'desc nullable then pk', dataset: 'companies', filter: matchAll(), sort: [['svc_score', 'desc']] },
  { name: 'mixed directions', dataset: 'investors', filter: matchAll(), sort: [['type', 'asc'], ['portfolio_size', 'desc']] },
  { name: 'pk already present is not repeated', dataset: 'companies', filter: matchAll(), sort: [['id', 'desc']] },
  { name: 'seek after non-null values', dataset: 'companies', filter: c('country', 'eq', 'USA', p), sort: [['svc_score', 'desc'], ['name', 'asc']], after: [3.5, 'Acme', 42] },
  { name: 'seek after a NULL key', dataset: 'companies', filter: matchAll(), sort: [['svc_score', 'desc'], ['name', 'asc']], after: [null, 'Acme', 42] },
  { name: 'seek after all-NULL keys', dataset: 'companies', filter: matchAll(), sort: [['svc_score', 'desc'], ['name', 'asc']], after: [null, null, 42] },
  { name: 'seek on pk only', dataset: 'fundings', filter: matchAll(), sort: [['id', 'asc']], after: [99] },
  { name: 'walk: a foreign is a probe, its nested set only filters', dataset: 'companies', filter: foreign('investors', foreign('companies', c('stage', 'eq', 'a', p), 'any', p), 'any', p), sort: [['svc_score', 'desc']], walk: true },
  { name: 'walk: a wide foreign stays a set, marked so it filters', dataset: 'companies', filter: foreign('investors', or(['a', 'b', 'c', 'd', 'e'].map((n) => c('name', 'eq', n, p)), p), 'none', p), sort: [['svc_score', 'desc']], walk: true },
  { name: 'count with filter', dataset: 'investors', filter: c('portfolio_size', 'gte', 10, p), count: true },
  { name: 'count all', dataset: 'investors', filter: matchAll(), count: true },
]
