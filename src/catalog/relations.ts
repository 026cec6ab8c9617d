/**
 * @module The relations between datasets. `foreign` filters follow them; each ordered pair of
 * datasets has at most one relation, so `{foreign: {dataset}}` needs no path name.
 */
import type { DatasetName, RelationDef } from './define.js'

const RELATION_DEFS = [
  {
    from: 'investors', to: 'companies', kind: 'link', table: 'investments', fromKey: 'investor_id', toKey: 'company_id',
    description: 'The companies an investor has invested in (its portfolio).',
  },
  {
    from: 'companies', to: 'investors', kind: 'link', table: 'investments', fromKey: 'company_id', toKey: 'investor_id',
    description: 'The investors that invested in a company.',
  },
  {
    from: 'companies', to: 'fundings', kind: 'direct', fromColumn: 'id', toColumn: 'company_id',
    description: 'The funding events of a company.',
  },
  {
    from: 'fundings', to: 'companies', kind: 'direct', fromColumn: 'company_id', toColumn: 'id',
    description: 'The company that raised a funding event.',
  },
  {
    from: 'fundings', to: 'investors', kind: 'link', table: 'funding_investors', fromKey: 'funding_id', toKey: 'investor_id',
    description: 'The investors that took part in a funding event.',
  },
  {
    from: 'investors', to: 'fundings', kind: 'link', table: 'funding_investors', fromKey: 'investor_id', toKey: 'funding_id',
    description: 'The funding events an investor took part in.',
  },
] as const satisfies readonly RelationDef[]

/** The datasets a `foreign` condition on records of `D` can name (the `to` of each relation from `D`). */
export type RelatedDataset<D extends DatasetName> = Extract<(typeof RELATION_DEFS)[number], { readonly from: D }>['to']

export const relations: readonly RelationDef[] = Object.freeze(RELATION_DEFS.map((r) => Object.freeze(r)))

export function findRelation(from: DatasetName, to: DatasetName): RelationDef | undefined {
  return relations.find((r) => r.from === from && r.to === to)
}
