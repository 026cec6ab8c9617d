/**
 * @module zod schema of GET /ratelimit/usage (spec 4.16, 2.15): a bare array of usage records with
 * integer fields, one record per quota the key has (today one).
 */
import { z } from 'zod'

const unixSeconds = z.number().int().min(0)

export const usageRecordSchema = z.object({
  quota_limit: z.number().int().min(1).describe('Requests allowed per period (X-Quota-Limit).'),
  quota_remaining: z.number().int().min(0).describe('Requests left in the current period (X-Quota-Remaining).'),
  quota_reset: unixSeconds.describe('Unix seconds (UTC) at which the next period starts (X-Quota-Reset).'),
  quota_period: unixSeconds.describe('Unix seconds (UTC) at which the current period started.'),
}).describe('Quota usage of the calling key.')

export const usageResponseSchema = z.array(usageRecordSchema).min(1).describe('Usage records. Calls to this endpoint do not count against the quota.')
