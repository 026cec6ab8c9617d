/**
 * @module zod schemas of the wire shapes shared by several endpoints (spec 2.1 paging meta, the
 * error body, the serialised scalar forms of spec section 2). Route specs and tests use the same
 * schemas: the OpenAPI document is derived from them and every response in the tests is parsed by
 * them, so the document cannot drift from what the server sends.
 */
import { z } from 'zod'

/** A numeric value serialised as a string (spec section 2: "string (numeric)"). */
export const numericString = z.string().regex(/^-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?$/i, 'a numeric string')
/** YYYY-MM-DD. */
export const isoDate = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, 'a YYYY-MM-DD date')
/** 'YYYY-MM-DD HH:MM:SS'. */
export const sqlDatetime = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$/, "a 'YYYY-MM-DD HH:MM:SS' datetime")
/** 'YYYY-MM-DD HH:MM:SS UTC' (stories, time series; '+0000' also occurs in est_monthly_uniques). */
export const utcDatetime = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} (UTC|\+0000)$/, "a 'YYYY-MM-DD HH:MM:SS UTC' datetime")

/** Paging meta (spec 2.1). */
export const metaSchema = z.object({
  total_record_count: z.number().int().min(0),
  total_pages: z.number().int().min(0),
  current_page: z.number().int().min(1),
  per_page: z.number().int().min(1),
}).describe('Paging meta.')

/** One issue of a 400 body (design section 3). */
export const issueSchema = z.object({
  code: z.string().describe('A stable machine-readable code (grammar-docs/reference/error-codes.md).'),
  path: z.string().describe('JSON Pointer to what is wrong: `/filter/and/0/name` in a query body, `/country` for a parameter.'),
  message: z.string().describe('What is wrong, for people.'),
  expected: z.string().optional().describe('What would have been accepted.'),
  got: z.string().optional().describe('What was sent, quoted and capped (never a key-shaped run).'),
  suggestions: z.array(z.string()).optional().describe('Did-you-mean candidates, nearest first.'),
  allowed: z.array(z.string()).optional().describe('Every accepted value, where there are few.'),
})

/** Every error body: RFC 9457 problem details plus the `error` string clients of the original service read. */
export const problemSchema = z.object({
  type: z.string().describe('A URI naming the kind of problem (RFC 9457).'),
  title: z.string().describe('The kind of problem, for people.'),
  status: z.number().int().describe('The HTTP status, repeated.'),
  detail: z.string().describe('This occurrence, for people.'),
  error: z.string().describe('The message clients of the original service read.'),
  issues: z.array(issueSchema).optional().describe('On a 400: every problem found, each with where and why.'),
}).passthrough().describe('An error (application/problem+json).')

/** `page` and `per_page` query parameters (spec section 8). */
export const pagingParams = {
  page: z.string().optional().describe('Page number, from 1 (default 1). Trial keys get page 1 only.'),
  per_page: z.string().optional().describe('Results per page; values above the cap (50 by default) are lowered to it.'),
}
