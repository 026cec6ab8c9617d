/**
 * @module ventureql/http: the reference HTTP server as a Web-standard fetch handler.
 */
export { createApp, resolveOptions, type VentureApp } from './app.js'
export type { AppOptions, AppDeps, HttpEnv, RouteSpec, RouteModule } from './context.js'
export type { TypoMode } from '../records/search.js'
export type { AuthHook, AuthResult, Identity, QuotaHook, QuotaResult, QuotaInfo, QuotaContext } from './access.js'
export { problemResponse, issuesResponse } from './problem.js'
export { toNodeHandler, type NodeHandler, type NodeHandlerOptions } from './node-handler.js'
export { bodyParserErrorHandler, type BodyParserErrorHandler } from './body-parser-errors.js'
export { startNodeServer, ListenError, DEFAULT_SHUTDOWN_TIMEOUT_MS, type NodeServerOptions, type RunningServer, type AccessEntry, type CloseSummary } from './node-server.js'
export { loadOrCreateDevCertificate, readTlsPair, TlsSetupError, type TlsMaterial } from './tls.js'
export { buildOpenApiDocument, type DocumentedAccess, type OpenApiDocument, type OpenApiOptions, type OpenApiSecurity, type SecurityRequirements } from './openapi.js'
export { createMetrics, type HttpMetrics, type MetricsOptions } from './metrics.js'
export { createRequestLog, resolveLogFormat, type LogFormat, type RequestLog, type RequestLogOptions } from './request-log.js'
export { REQUEST_ID_HEADER, type RequestEntry } from './observe.js'
