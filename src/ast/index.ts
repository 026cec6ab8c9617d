export * from './nodes.js'
export * as build from './factory.js'
export { visitFilter, childrenOf, type FilterVisitor } from './visit.js'
