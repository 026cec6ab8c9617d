/**
 * @module GET /ratelimit/usage (spec 4.16, 2.15): the calling key's quota as a bare array. The
 * quota middleware reads the counter for this path without counting the call (spec 4.16) and still
 * sets the X-Quota-* headers, so the body and the headers always agree. Where the quota in force
 * reports none (a host's quota hook, or `quota: false`), it is 404. GET /ratelimit/quota, the
 * original service's older path that its PHP client calls, answers the same.
 */
import type { RouteModule } from '../context.js'
import { problemResponse } from '../problem.js'
import { usageResponseSchema } from '../schemas/usage.js'
import { USAGE_PATHS } from '../quota.js'

export const usageRoutes: RouteModule = {
  specs: [{
    method: 'get',
    path: '/ratelimit/usage',
    summary: 'Quota usage of the calling key',
    description: 'A bare array with one usage record. quota_period is the start of the current period in unix seconds, '
      + 'quota_reset the start of the next. Calls to this endpoint do not count against the quota.',
    specSection: '4.16',
    response: usageResponseSchema,
    authenticated: true,
  }, {
    method: 'get',
    path: '/ratelimit/quota',
    summary: 'Quota usage of the calling key (the original service\'s older path)',
    description: 'The same answer as GET /ratelimit/usage, kept for the original service\'s existing clients, which call this path. '
      + 'Calls to it do not count against the quota.',
    specSection: '4.16',
    response: usageResponseSchema,
    authenticated: true,
    deprecated: true,
  }],
  register(app) {
    for (const path of USAGE_PATHS) app.get(path, (c) => {
      const state = c.get('quota')
      // A host's quota hook that reports no quota for this caller (or `quota: false`): nothing to show.
      if (!state) return problemResponse(404, { detail: 'No quota applies to this caller on this server.' })
      return c.json([{
        quota_limit: state.limit,
        quota_remaining: state.remaining,
        quota_reset: state.reset,
        quota_period: state.start,
      }])
    })
  },
}
