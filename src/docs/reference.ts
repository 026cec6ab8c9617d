/**
 * @module The generated reference pages of grammar-docs/reference/, as pure functions of the
 * catalog and the issue codes. `scripts/generate-docs.ts` writes them; `test/docs/drift.test.ts`
 * fails when the committed files differ, so the docs cannot silently fall behind the catalog.
 */
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import type { FieldType, FieldTypeKind } from '../catalog/field-types.js'
import { DATASET_NAMES, datasets, OPERATOR_NAMES, OPERATORS, operatorsFor, relations } from '../catalog/index.js'
import { ISSUE_CODES, type IssueCode } from '../errors/codes.js'

/** One generated file; `path` is relative to grammar-docs/. */
export interface GeneratedPage {
  readonly path: string
  readonly content: string
}

const BANNER = '<!-- Generated from the catalog by scripts/generate-docs.ts. Do not edit: run `npm run docs`. -->'

/** How values of each field type are written in a filter and stored; exhaustive over the kinds. */
const FIELD_TYPE_DOCS: Record<FieldTypeKind, { readonly values: string; readonly stored: string }> = {
  integer: {
    values: 'A JSON integer, or a numeric string holding one (`"250"`, as the original service serialises many numerics). Fractions and values beyond 2^53 are refused.',
    stored: 'Integer column.',
  },
  number: {
    values: 'A JSON number, or a string holding one (`"12.5"`).',
    stored: 'Floating-point column.',
  },
  string: {
    values: 'A JSON string. `eq`, `in` and the order operators compare exactly (byte order); `contains`, `starts_with` and `ends_with` are literal and fold ASCII letters only.',
    stored: 'Text column.',
  },
  date: {
    values: 'A calendar date `"YYYY-MM-DD"`; the compact form `"YYYYMMDD"` is accepted and normalised.',
    stored: 'Text `YYYY-MM-DD`, so text order is date order.',
  },
  datetime: {
    values: 'A timestamp `"YYYY-MM-DD HH:MM:SS"` (UTC); ISO forms with `T`, fractional seconds or a zone (converted to UTC) and a plain date (midnight) are accepted and normalised.',
    stored: 'Text `YYYY-MM-DD HH:MM:SS`, so text order is time order.',
  },
  boolean: {
    values: '`true` or `false` (`1`/`0` and `"true"`/`"false"`/`"1"`/`"0"` are accepted).',
    stored: 'Integer 0/1; never NULL.',
  },
  enum: {
    values: 'One of the field\'s values, matched case-insensitively; listed aliases map to their value. Anything else is `unknown_enum_value`.',
    stored: 'Text, in the catalog\'s spelling.',
  },
  tags: {
    values: 'Strings, compared exactly. A scalar means "has this value"; `in` means `has_any`; `null` means `is_empty: true`.',
    stored: 'A link table, one row per (record, value); a record without values has no rows (it is never NULL).',
  },
}

/** Escapes text for a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function code(text: string): string {
  return `\`${text}\``
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`]
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`)
  return lines.join('\n')
}

function page(title: string, ...sections: string[]): string {
  return [BANNER, '', `# ${title}`, '', ...sections.flatMap((s) => [s, ''])].join('\n').replace(/\n+$/, '\n')
}

function typeName(type: FieldType): string {
  return type.kind === 'enum' ? 'enum' : type.kind
}

function enumValues(type: FieldType): string {
  if (type.kind !== 'enum') return ''
  const aliases = Object.entries(type.aliases ?? {}).map(([alias, value]) => `${code(alias)} → ${code(value)}`)
  return type.values.map(code).join(', ') + (aliases.length ? `; aliases: ${aliases.join(', ')}` : '')
}

export function operatorsPage(): string {
  const rows = OPERATOR_NAMES.map((name) => {
    const op = OPERATORS[name]
    return [code(name), op.operand, op.appliesTo.join(', '), op.negationOf ? code(op.negationOf) : '', op.description]
  })
  return page(
    'Operators',
    'Every operator of the filter language, the JSON shape of its operand and the field types that allow it. Semantics: [language.md](../language.md#operators). Operand shapes: `scalar` (string, number, boolean; `null` only for `eq`), `pair` (`[lo, hi]`), `list` (non-empty array, no `null`), `boolean`, `text` (non-empty string).',
    table(['Operator', 'Operand', 'Field types', 'Exact complement of', 'Meaning'], rows),
  )
}

export function fieldTypesPage(): string {
  const kinds = Object.keys(FIELD_TYPE_DOCS) as FieldTypeKind[]
  const rows = kinds.map((kind) => [code(kind), FIELD_TYPE_DOCS[kind].values, FIELD_TYPE_DOCS[kind].stored, operatorsFor(kind).map(code).join(', ')])
  return page(
    'Field types',
    'The value types a field can have, how a filter writes their values, how they are stored, and which operators they allow. Semantics of null and comparison: [language.md](../language.md#values).',
    table(['Type', 'Values in a filter', 'Stored as', 'Operators'], rows),
  )
}

export function datasetPage(ds: DatasetDef): string {
  const fields = Object.values(ds.fields) as FieldDef[]
  const rows = fields.map((f) => [
    code(f.name),
    typeName(f.type),
    f.role,
    f.nullable ? 'yes' : 'no',
    f.sortable ? 'yes' : 'no',
    operatorsFor(f.type.kind).map(code).join(', '),
    enumValues(f.type),
    f.description,
  ])
  const related = relations.filter((r) => r.from === ds.name).map((r) => `- ${code(r.to)}: ${r.description}`)
  const meta = [
    `- Name: ${code(ds.name)}${ds.aliases.length ? ` (aliases: ${ds.aliases.map(code).join(', ')})` : ''}`,
    `- Primary key: ${code(ds.primaryKey)} (appended to every sort as the final tiebreaker)`,
    `- Default sort: ${ds.defaultSort.map((s) => `${code(s.field)} ${s.direction}`).join(', ') || 'primary key'}`,
    `- Identifying fields (\`eq\`/\`in\` on them inside a \`foreign\` compiles to a semi-join, see [language.md](../../language.md#foreign)): ${[ds.primaryKey, ...fields.filter((f) => f.identifying).map((f) => f.name)].map(code).join(', ')}`,
    `- Facetable fields (\`facets\`, see [guides/facets.md](../../guides/facets.md)): ${fields.filter((f) => f.facet !== undefined).map((f) => `${code(f.name)}${f.facet === 'year' ? ' (by year)' : ''}`).join(', ') || 'none'}`,
  ]
  return page(
    `Dataset \`${ds.name}\``,
    ds.description,
    meta.join('\n'),
    '## Fields',
    'Nullable: whether the field can have no value (see [language.md](../../language.md#null)). Tags fields hold several values and cannot be sorted on.',
    table(['Field', 'Type', 'Role', 'Nullable', 'Sortable', 'Operators', 'Enum values', 'Description'], rows),
    '## Related datasets (`foreign`)',
    related.join('\n') || 'None.',
  )
}

export function relationsPage(): string {
  const rows = relations.map((r) => [
    code(r.from),
    code(r.to),
    r.kind === 'link' ? `link table ${code(r.table)} (${code(r.fromKey)} → ${code(r.toKey)})` : `${code(`${r.from}.${r.fromColumn}`)} = ${code(`${r.to}.${r.toColumn}`)}`,
    r.description,
  ])
  return page(
    'Relations',
    'The paths a `foreign` condition follows from the dataset in scope (From) to the dataset it names (To). Each ordered pair has at most one relation. Semantics of `match`: [language.md](../language.md#foreign).',
    table(['From', 'To', 'Join', 'Meaning'], rows),
  )
}

export function errorCodesPage(): string {
  const rows = (Object.keys(ISSUE_CODES) as IssueCode[]).map((c) => [code(c), ISSUE_CODES[c]])
  return page(
    'Error codes',
    'The stable `code` of every issue. Clients may switch on them; codes are never renamed. The issue shape and paths: [language.md](../language.md#errors).',
    table(['Code', 'Meaning'], rows),
  )
}

/** reference/index.md: what each generated page holds (a package has no folder listing to browse). */
export function indexPage(): string {
  const datasetLinks = DATASET_NAMES.map((name) => `- [\`${name}\`](datasets/${name}.md): ${cell(datasets[name].description)}`)
  return page(
    'Reference',
    'Generated pages: they change only with the code they describe, and a test fails when they drift. The hand-written guides are [language.md](../language.md) (the filter language), [list-parameters.md](../list-parameters.md) (`GET /companies` and `GET /fundings`) and [records.md](../records.md) (the import format).',
    '- [The HTTP API](api.md): every endpoint, its parameters, its answers and the fields of its records.\n'
      + '- [Operators](operators.md), [field types](field-types.md), [relations](relations.md) (`foreign`), [error codes](error-codes.md).',
    '## Datasets',
    datasetLinks.join('\n'),
  )
}

/** Every generated page, in a stable order. */
export function referencePages(): readonly GeneratedPage[] {
  return Object.freeze([
    { path: 'reference/index.md', content: indexPage() },
    { path: 'reference/operators.md', content: operatorsPage() },
    { path: 'reference/field-types.md', content: fieldTypesPage() },
    ...DATASET_NAMES.map((name) => ({ path: `reference/datasets/${name}.md`, content: datasetPage(datasets[name]) })),
    { path: 'reference/relations.md', content: relationsPage() },
    { path: 'reference/error-codes.md', content: errorCodesPage() },
  ])
}
