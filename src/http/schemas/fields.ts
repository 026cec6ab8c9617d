/**
 * @module The `fields` parameter (http/fields.ts) as the OpenAPI document shows it: a query
 * parameter of every listing and stored-query page, and a member of the POST /queries body. The
 * accepted names are listed from the catalog, so they follow it without an edit.
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
