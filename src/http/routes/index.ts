/**
 * @module Every route module, in the order they mount. The OpenAPI document lists their specs in
 * this order too.
 */
import type { RouteModule } from '../context.js'
import { companyListRoutes } from './companies.js'
import { companyDetailRoutes } from './company-details.js'
import { searchRoutes } from './search.js'
import { fundingRoutes } from './fundings.js'
import { investorRoutes } from './investors.js'
import { queryRoutes } from './queries.js'
import { exportRoutes } from './export.js'
import { usageRoutes } from './usage.js'
import { openApiRoutes } from './openapi.js'

export const ROUTE_MODULES: readonly RouteModule[] = Object.freeze([
  companyListRoutes,
  companyDetailRoutes,
  searchRoutes,
  fundingRoutes,
  investorRoutes,
  queryRoutes,
  exportRoutes,
  usageRoutes,
  openApiRoutes,
])
