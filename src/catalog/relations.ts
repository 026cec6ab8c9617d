/**
 * @module The relations between datasets. `foreign` filters follow them; each ordered pair of
 * datasets has at most one relation, so `{foreign: {dataset}}` needs no path name.
 */
import type { DatasetName, RelationDef } from './define.js'

export const relations: readonly RelationDef[] = Object.freeze([
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
] satisfies RelationDef[]).map((r) => Object.freeze(r)) as readonly RelationDef[]

export function findRelation(from: DatasetName, to: DatasetName): RelationDef | undefined {
  return relations.find((r) => r.from === from && r.to === to)
}
