/**
 * @module ventureql: the query engine. Parse, check, compile and execute structured queries over
 * company, investor and funding data.
 */
export * from './catalog/index.js'
export * from './ast/index.js'
export * from './errors/issue.js'
export { ISSUE_CODES, type IssueCode } from './errors/codes.js'
