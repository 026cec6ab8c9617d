/**
 * @module The names the original service's public clients send for parameters the spec renamed
 * (`LIST_PARAMETER_ALIASES`), read as the spec's name. The PHP client (Marketplace-Mattermark-
 * Package, getCompaniesList) sends `mattermark_score`, `has_google_play`, `has_itunes` and
 * `itunes_category`; without these the filter would be silently dropped (the names are too far
 * from the spec's for the did-you-mean guard) and the answer would list every company.
 *
 * The HTTP handlers, the OpenAPI document (each alias a deprecated parameter) and the docs read
 * this table. Sending an alias and its spec name with different values is an issue naming both.
 */
import { previewValue } from '../../errors/format.js'
import { issue, ok, type Issue } from '../../errors/issue.js'
import { type ListEndpoint, type ListParamSource } from './table.js'

export interface ParamAlias {
  /** The name clients of the original service send. */
  readonly alias: string
  /** The spec's name, a parameter of `LIST_PARAMETERS` for the same endpoint. */
  readonly name: string
}

const a = (alias: string, name: string): ParamAlias => Object.freeze({ alias, name })

export const LIST_PARAMETER_ALIASES: Readonly<Record<ListEndpoint, readonly ParamAlias[]>> = Object.freeze({
  companies: Object.freeze([
    a('mattermark_score', 'svc_score'),
    a('has_google_play', 'has_android_store'),
    a('has_itunes', 'has_ios_store'),
    a('itunes_category', 'ios_store_category'),
  ]),
  fundings: Object.freeze([]),
})

/**
 * `params` with every alias read as its spec name. A name sent under one spelling only reads as
 * sent; sent under both with the same values (as lists: the same set), it reads once; with
 * different values, an issue at the spec name's path naming both spellings, and the name reads as
 * absent (so the other parameters' issues are still reported in the same answer).
 */
export function resolveAliases(endpoint: ListEndpoint, params: ListParamSource): { readonly source: AliasedSource; readonly issues: readonly Issue[] } {
  const issues: Issue[] = []
  const renamed = new Map<string, string>()
  const conflicting = new Set<string>()
  for (const { alias, name } of LIST_PARAMETER_ALIASES[endpoint]) {
    const viaAlias = params.list(alias)
    if (viaAlias === undefined) continue
    const direct = params.list(name)
    if (direct !== undefined && !sameValues(direct, viaAlias)) {
      issues.push(issue({
        code: 'invalid_value', path: `/${name}`,
        message: `Parameters \`${name}\` and \`${alias}\` (the original service's name for \`${name}\`) were both sent, with different values (${previewValue(direct)} and ${previewValue(viaAlias)}); send one of them.`,
        expected: `\`${name}\` or \`${alias}\`, not both with different values`,
        got: previewValue({ [name]: direct, [alias]: viaAlias }),
      }))
      conflicting.add(name)
      continue
    }
    if (direct === undefined) renamed.set(name, alias)
  }
  const read = (name: string) => renamed.get(name) ?? name
  const source: AliasedSource = {
    list: (name) => (conflicting.has(name) ? undefined : params.list(read(name))),
    one: (name) => (conflicting.has(name) ? ok(undefined) : params.one(read(name))),
    sentAs: (name) => renamed.get(name),
  }
  return { source, issues }
}

/** A source that reads aliases as spec names; `sentAs(name)` is the alias a value was read from. */
export interface AliasedSource extends ListParamSource {
  sentAs(name: string): string | undefined
}

/**
 * An issue about a parameter that was sent under its alias, in the client's terms: its path is
 * the alias, and its message names both spellings.
 */
export function inAliasTerms(found: Issue, name: string, alias: string): Issue {
  if (found.path !== `/${name}` && !found.path.startsWith(`/${name}/`)) return found
  return issue({
    ...found,
    path: `/${alias}${found.path.slice(name.length + 1)}`,
    message: found.message.split(`\`${name}\``).join(`\`${alias}\` (read as \`${name}\`)`),
  })
}

function sameValues(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.every((v) => y.includes(v))
}
