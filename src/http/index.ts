/**
 * @module ventureql/http: the reference HTTP server as a Web-standard fetch handler.
 */
export { createApp, resolveOptions, type VentureApp } from './app.js'
export type { AppOptions, AppDeps, HttpEnv, RouteSpec, RouteModule } from './context.js'
export { problemResponse, issuesResponse } from './problem.js'
