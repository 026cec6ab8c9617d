/**
 * @module One value as a CSV cell of an export (GET /queries/:query_id/export, `ventureql export`):
 * tags (arrays of strings) joined by `|`, other arrays and objects as JSON, null as an empty cell,
 * the rest as text. Quoting is csv-stringify's (RFC 4180).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string') ? value.join('|') : JSON.stringify(value)
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}
