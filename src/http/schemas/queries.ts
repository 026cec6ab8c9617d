/**
 * @module zod schemas of structured queries (spec 4.14, 4.15, 2.14): the request body of
 * POST /queries and the query result envelope. Result records are derived from the catalog (the
 * one source of field names and types), so a field added there is described here without an edit,
 * and a record that strays from its declared type fails the tests that parse responses with these.
 */
import { z } from 'zod'
import { fieldsBodyMember } from './fields.js'
import { datasets, DATASET_NAMES, type DatasetDef, type DatasetName, type FieldDef } from '../../catalog/index.js'
import { answerOptionMembers, facetsSchema, metaWithoutTotalSchema } from './answer-options.js'
import { isoDate, metaSchema, numericString, sqlDatetime } from './common.js'
import { fundingSchema } from './listings.js'
import { missingFormOf } from '../views/missing-values.js'

//// result records ////

/**
 * The wire schema of one field's value (spec section 2: strings where it says string), with the
 * field's missing value in its form (grammar-docs/guides/serving.md, "Missing values"; `missingFormOf`): `''` for texts,
 * 'Unknown' for a company's stage, null for numbers, dates and the spec's nullable texts.
 */
function fieldSchema(dataset: DatasetName, field: FieldDef): z.ZodType {
  const form = missingFormOf(dataset, field)
  const base = ((): z.ZodType => {
    const kind = field.type.kind
    switch (kind) {
      case 'integer':
        return field.wire === 'string' ? numericString : z.number().int()
      case 'number':
        return field.wire === 'string' ? numericString : z.number()
      case 'string':
        return z.string()
      case 'enum': {
        // Values as stored: the enum's own spellings, never an alias; '' when unknown (but the stage).
        const values = z.enum(field.type.values as [string, ...string[]])
        return form === 'text' ? z.union([values, z.literal('')]) : values
      }
      case 'date':
        return isoDate
      case 'datetime':
        return sqlDatetime
      case 'boolean':
        return z.boolean()
      case 'tags':
        return z.array(z.string())
      default: {
        const unhandled: never = kind
        throw new Error(`schemas/queries: no wire schema for field type ${String(unhandled)}`)
      }
    }
  })()
  const note = form === 'text' ? ' \'\' when unknown.' : form === 'stage' ? ' \'Unknown\' when unknown.' : ''
  return (field.nullable && form === 'null' ? base.nullable() : base).describe(`${field.description}${note}`)
}

/** Members of result records that are not catalog fields (spec 2.11: `resource_type: 'investor'`). */
const RECORD_CONSTANT_SCHEMAS: Readonly<Record<DatasetName, z.ZodRawShape>> = {
  companies: {},
  investors: { resource_type: z.literal('investor') },
  fundings: {},
}

/** One result record of `dataset` on the wire: every catalog field, typed as the catalog says, missing values by the rule. */
export function resultRecordSchema(dataset: DatasetDef): z.ZodObject {
  const shape: Record<string, z.ZodType> = {}
  for (const field of Object.values(dataset.fields)) shape[field.name] = fieldSchema(dataset.name, field)
  return z.object({ ...shape, ...RECORD_CONSTANT_SCHEMAS[dataset.name] }).describe(`A record of the ${dataset.name} dataset. ${dataset.description}`)
}

/**
 * Result records on the wire. Fundings results are shown as the funding event of spec 2.10 (the
 * GET /fundings view, with investors, slugs and industry added), so a client reads a funding the
 * same way from either endpoint; investors (spec 2.11) and companies are the engine's records with
 * their missing values shown by the rule of every endpoint.
 */
export const resultRecordSchemas: Readonly<Record<DatasetName, z.ZodObject>> = Object.freeze({
  companies: resultRecordSchema(datasets.companies),
  investors: resultRecordSchema(datasets.investors),
  fundings: fundingSchema,
})

//// request ////

const sortClause = z.record(z.string(), z.enum(['asc', 'desc'])).describe('One clause: {field: "asc" | "desc"}.')
const integerOrDigits = z.union([z.number().int().min(1), z.string().regex(/^[1-9][0-9]{0,14}$/)])

/**
 * The body of POST /queries (spec 4.14). As JSON, or form-encoded (`application/x-www-form-urlencoded`
 * or `multipart/form-data`) with one key per parameter and `filter` and `sort` as JSON text.
 */
export const queryRequestSchema = z.object({
  dataset: z.string().describe('companies, investors or fundings; the singular forms are accepted too.'),
  filter: z.record(z.string(), z.unknown()).optional().describe('The filter hash (grammar-docs/language.md). Absent or {}: every record.'),
  sort: z.array(sortClause).optional().describe('Sort clauses, applied in order; the primary key is always the final tiebreaker.'),
  page: integerOrDigits.optional().describe('Page number, from 1 (default 1). Trial keys get page 1 only.'),
  per_page: integerOrDigits.optional().describe('Results per page; values above the cap (50 by default) are lowered to it.'),
  ...fieldsBodyMember,
  ...answerOptionMembers,
}).describe('A structured query.')

//// envelope ////

/** The stored query as the envelope shows it (spec 2.14). */
export const storedQuerySchema = z.object({
  query_id: z.string().min(1).describe('Content-addressed id of the canonical query (URL-safe).'),
  dataset: z.enum(DATASET_NAMES as [DatasetName, ...DatasetName[]]).describe('The dataset, by its canonical (plural) name.'),
  filter: z.record(z.string(), z.unknown()).describe('The canonical filter: sugar removed, keys and lists sorted.'),
  sort: z.array(sortClause).describe('The sort that decides the pages: the one given, else the dataset\'s default (always present, on POST and GET alike).'),
  query_version: z.number().int().min(1).describe('Language and catalog version the query was checked under (on POST and GET alike).'),
})

/** The envelope for records of one dataset: what tests parse a response with when they know the dataset. */
export function queryEnvelopeSchemaFor(dataset: DatasetName): z.ZodObject {
  return z.object({
    query: storedQuerySchema.extend({ dataset: z.literal(dataset) }),
    results: z.array(resultRecordSchemas[dataset]),
    meta: metaSchema,
    query_id: z.string().min(1),
    facets: facetsSchema.optional(),
  })
}

/** The envelope of one dataset under `total=none`: `meta` without the total. */
export function queryEnvelopeWithoutTotalSchemaFor(dataset: DatasetName): z.ZodObject {
  return queryEnvelopeSchemaFor(dataset).extend({ meta: metaWithoutTotalSchema })
}

/** The query result envelope (spec 2.14) of POST /queries and GET /queries/:query_id. */
export const queryEnvelopeSchema = z.union(DATASET_NAMES.map(queryEnvelopeSchemaFor) as [z.ZodObject, z.ZodObject, ...z.ZodObject[]])
  .describe('The query result envelope: the stored query, one page of results, paging meta and the query id.')

/** What POST /queries and GET /queries/:query_id answer: the envelope, counted or under `total=none`. */
export const queryPageSchema = z.union([
  ...DATASET_NAMES.map(queryEnvelopeSchemaFor),
  ...DATASET_NAMES.map(queryEnvelopeWithoutTotalSchemaFor),
] as [z.ZodObject, z.ZodObject, ...z.ZodObject[]])
  .describe('The query result envelope: the stored query, one page of results, paging meta (without the total under `total=none`), the query id, and `facets` when asked for.')
