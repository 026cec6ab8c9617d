/**
 * @module Statements PostgreSQL keeps prepared on each pooled connection, by their SQL text.
 *
 * A statement whose text is named here runs as a named prepared statement (`pg`'s `name`): parsed
 * and planned on a connection's first run of it, then only bound and executed. Only for statements
 * whose plan cannot depend on the values (lookups by primary key): after five runs PostgreSQL may
 * switch a prepared statement to one generic plan, which for a filtered listing cost 5-7 ms ->
 * 42 ms (design section 8), so listings stay unnamed. A company detail's one statement spent
 * 1.3-1.5 ms planning against 0.46 ms executing (EXPLAIN ANALYZE, 100,000 companies); see
 * `npm run bench -- postgres`, the company detail row.
 */

const names = new Map<string, string>()

/** Marks `sql` to run as a prepared statement; its name is fixed for the process. */
export function prepareByName(sql: string): void {
  if (!names.has(sql)) names.set(sql, `vq_prepared_${names.size + 1}`)
}

/** The prepared statement name of `sql`, when it was marked. */
export function preparedName(sql: string): string | undefined {
  return names.get(sql)
}
