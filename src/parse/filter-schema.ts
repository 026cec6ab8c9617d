/**
 * @module zod 4 schemas of the request envelope and of the recursive filter language
 * (grammar-docs/language.md, "Grammar"). They decide structure only: which keys a hash may have
 * and which JSON shape each operand takes (from `OPERATORS`). Whether a field exists or a value
 * fits its type depends on the dataset and is the checker's job.
 *
 * The schemas are exported so that other tools (the OpenAPI document, `z.toJSONSchema`) derive
 * from the same source. `./issues.ts` turns their issues into ours; `./to-ast.ts` builds the AST
 * from input these schemas accepted.
 */
import { z } from 'zod'
import { FOREIGN_MATCH_MODES, OPERATOR_NAMES, OPERATORS, type OperandShape } from '../catalog/operators.js'

/** Marks the refinements whose failures `./issues.ts` maps to our codes. */
export type SchemaCheck = 'nested_filter_not_empty' | 'operators_not_empty' | 'one_sort_key'

function nonEmptyHash(check: SchemaCheck) {
  return (ctx: z.core.ParsePayload<unknown>) => {
    // An empty input hash has no entries that could have failed; with failures it was not empty
    // (zod drops unrecognized keys from `value`, so `value` alone cannot tell).
    if (ctx.issues.length === 0 && typeof ctx.value === 'object' && ctx.value !== null && Object.keys(ctx.value).length === 0) {
      ctx.issues.push({ code: 'custom', message: check, input: ctx.value, params: { check } })
    }
  }
}

/** A value on its own: what a field equals. `null` is allowed (it means `is_null: true`). */
export const scalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()])

/** A list element: like a scalar but never null (`in: [null]` would be an accidental no-match). */
export const listElementSchema = z.union([z.string(), z.number(), z.boolean()])

/** The operand of each operator shape (`./to-ast.ts` also judges operands one by one with them). */
export const OPERAND_SCHEMAS: Readonly<Record<OperandShape, z.ZodType>> = {
  scalar: scalarSchema,
  pair: z.tuple([listElementSchema, listElementSchema]),
  list: z.array(listElementSchema).min(1),
  boolean: z.boolean(),
  // `contains: ""` would match every non-null value.
  text: z.string().min(1),
}

/** A hash of operators on one field: strict (an unknown operator is an error), never empty. */
export const operatorHashSchema = z
  .strictObject(
    Object.fromEntries(OPERATOR_NAMES.map((op) => [op, OPERAND_SCHEMAS[OPERATORS[op].operand].optional()])) as Record<string, z.ZodOptional<z.ZodType>>,
  )
  .check(nonEmptyHash('operators_not_empty'))

/** What a field key holds: a scalar (equality) or an operator hash. */
export const fieldValueSchema = z.union([scalarSchema, operatorHashSchema])

/** The `foreign` hash: strict, `match` defaults to `any`. */
export const foreignSchema = z.strictObject({
  dataset: z.string().min(1),
  get filter(): z.ZodType {
    return nestedFilterSchema
  },
  match: z.enum(FOREIGN_MATCH_MODES).optional(),
})

/**
 * A filter hash: the logical keys, and any other key is a field of the dataset in scope. This is
 * the top-level form, where `{}` is allowed and means every record.
 */
export const filterSchema: z.ZodType = z
  .object({
    get and(): z.ZodType {
      return z.array(nestedFilterSchema).min(1).optional()
    },
    get or(): z.ZodType {
      return z.array(nestedFilterSchema).min(1).optional()
    },
    get not(): z.ZodType {
      return nestedFilterSchema.optional()
    },
    get foreign(): z.ZodType {
      return foreignSchema.optional()
    },
  })
  .catchall(fieldValueSchema)

/** A filter hash below the top level: `{}` there is an error, not "everything". */
export const nestedFilterSchema: z.ZodType = filterSchema.check(nonEmptyHash('nested_filter_not_empty'))

/**
 * A positive page number or size. Form-encoded clients send numbers as strings, so digit strings
 * are accepted too (at most 15 digits, so the value is a safe integer).
 */
export const positiveIntegerSchema = z.union([z.int().min(1), z.string().regex(/^[1-9][0-9]{0,14}$/)])

/** One sort clause: `{field: 'asc' | 'desc'}` (direction case-insensitive). */
export const sortClauseSchema = z
  .record(z.string(), z.string().regex(/^(asc|desc)$/i))
  .check((ctx) => {
    if (Object.keys(ctx.value).length !== 1) {
      ctx.issues.push({ code: 'custom', message: 'one_sort_key', input: ctx.value, params: { check: 'one_sort_key' } })
    }
  })

/** The request envelope of POST /queries (spec 4.14). */
export const querySchema = z.strictObject({
  dataset: z.string().min(1),
  filter: filterSchema.optional(),
  sort: z.array(sortClauseSchema).optional(),
  page: positiveIntegerSchema.optional(),
  per_page: positiveIntegerSchema.optional(),
})

export const QUERY_KEYS: readonly string[] = Object.freeze(Object.keys(querySchema.shape))
export const FOREIGN_KEYS: readonly string[] = Object.freeze(['dataset', 'filter', 'match'])
