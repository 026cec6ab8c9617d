/** @module TODO(issue 3): routes being written now; this module mounts nothing yet. */
import type { RouteModule } from '../context.js'

export const investorRoutes: RouteModule = {
  specs: [],
  register() {},
}
