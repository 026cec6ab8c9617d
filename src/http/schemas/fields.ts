/**
 * @module The `fields` parameter (http/fields.ts) as the OpenAPI document shows it: a query
 * parameter of every listing, stored-query page, detail and record sub-resource, and a member of
 * the POST /queries body. The accepted names are listed from the catalog or from the answer's
 * schema, so they follow it without an edit.
 */
import { z } from 'zod'
import { wireFieldNames, type WireRecords } from '../fields.js'

const ALWAYS_NOTE: Readonly<Record<WireRecords | 'any', string>> = {
  'companies': '`id` is always present.',
  'investors': '`investor_id` is always present.',
  'fundings': '`id` is always present.',
  'company-list-items': '`id` and `url` are always present.',
  'any': 'The record\'s id (`id`, or `investor_id` for investors) is always present.',
}

const describeFields = (records: WireRecords | 'any', names: string): string =>
  `Comma-separated names of the record members to return (default: all). Only those are read. ${ALWAYS_NOTE[records]} `
  + `An unknown name is a 400 with did-you-mean suggestions. Names: ${names}.`

/** The `fields` query parameter for one kind of records. */
export function fieldsParam(records: WireRecords): { fields: z.ZodOptional<z.ZodString> } {
  return { fields: z.string().optional().describe(describeFields(records, wireFieldNames(records).join(', '))) }
}

/** The `fields` of a stored query's page, whose dataset the id decides. */
export const storedFieldsParam = {
  fields: z.string().optional().describe(describeFields('any', 'those of the query\'s dataset (see POST /queries)')
    + ' Not part of the query id: any page of a stored query may pick its own fields.'),
}

/** The `fields` member of the POST /queries body. */
export const fieldsBodyMember = {
  fields: z.union([z.array(z.string()), z.string()]).optional().describe(
    'The record members to return: an array of names, or one comma-separated string (form bodies). Default: all. '
    + 'The record\'s id is always present; an unknown name is a 400 with did-you-mean. An answer option like `page`: '
    + 'not part of the query id, since it changes what each record shows, not which records or in what order.',
  ),
}

/**
 * The `fields` query parameter of a detail answer (`each`: false) or of the items of a record list
 * that is not a dataset's (`each`: true), whose names are the schema's `members` (http/fields.ts,
 * `detailSelection`); `always` are present whatever is picked.
 */
export function memberFieldsParam(members: readonly string[], options: { readonly each?: boolean; readonly always?: readonly string[] } = {}): { fields: z.ZodOptional<z.ZodString> } {
  const always = options.always ?? ['id']
  const present = always.length > 0 ? always.map((m) => `\`${m}\``).join(' and ') + ' always' : 'no member is always present'
  return {
    fields: z.string().optional().describe(
      `Comma-separated members of ${options.each ? 'each item' : 'the answer'} to return (default: all; ${present}). `
      + `An unknown name is a 400 with did-you-mean. Names: ${members.join(', ')}.`,
    ),
  }
}
