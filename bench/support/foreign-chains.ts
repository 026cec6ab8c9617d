/**
 * @module The requests of issue 7's measurement: a chain of nested `foreign` conditions that walks
 * companies -> investors -> companies -> ... and ends in a condition on the last dataset, and a
 * top-level `or` of many one-level `foreign` conditions (249 is the most that fits `maxNodes` 500:
 * the `or` plus two nodes per condition). With a name that matches nothing, nothing stops a
 * correlated probe early, so the requests show a plan's worst case.
 */

export const NO_SUCH_NAME = 'no-such-name'

/** The dataset at `level` of a chain that starts from companies (level 0) and alternates. */
export const chainDataset = (level: number): 'companies' | 'investors' => (level % 2 === 0 ? 'companies' : 'investors')

/**
 * The filter of a chain of `levels` nested `foreign` conditions starting from companies, with
 * `innermost` as the filter of the last one (over investors when `levels` is odd).
 */
export function chainFilter(levels: number, innermost: unknown, match: 'any' | 'none' | 'all' = 'any'): unknown {
  let filter = innermost
  for (let level = levels; level >= 1; level--) filter = { foreign: { dataset: chainDataset(level), filter, match } }
  return filter
}

/** `companies -> investors -> ... {name: {eq: name}}` as a request. */
export function chainRequest(levels: number, name = NO_SUCH_NAME): { dataset: string; filter: unknown } {
  return { dataset: 'companies', filter: chainFilter(levels, { name: { eq: name } }) }
}

/**
 * The same chain ending in a condition every investor meets: each level's set is as large as it
 * gets (every company with an investor, every investor with a company), the other worst case.
 */
export function broadChainRequest(levels: number): { dataset: string; filter: unknown } {
  return { dataset: 'companies', filter: chainFilter(levels, { name: { is_null: false } }) }
}

/**
 * `{or: [{foreign: investors {name: eq name-i}, match} x width]}` over companies. With `any` the
 * conditions merge into one `foreign` (check/foreign-plan.ts); `none` and `all` cannot share one
 * inside an `or`, so the plan keeps one probe or set per condition. With `all` and names that match
 * nothing every alternative is false, so each is evaluated for every company: the worst case.
 */
export function orOfForeignRequest(width: number, match: 'any' | 'none' | 'all' = 'any', name = NO_SUCH_NAME): { dataset: string; filter: unknown } {
  return {
    dataset: 'companies',
    filter: { or: Array.from({ length: width }, (_, i) => ({ foreign: { dataset: 'investors', filter: { name: { eq: `${name}-${i}` } }, match } })) },
  }
}
