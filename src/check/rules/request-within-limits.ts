/**
 * @module Rule: request within limits. The filter nests at most `maxDepth` levels of
 * and/or/not/foreign, has at most `maxNodes` nodes, no list longer than `maxListLength`, no string
 * value longer than `maxStringLength` characters, and the
 * sort at most `maxSortClauses` clauses. See grammar-docs/language.md, "Limits".
 *
 * The JSON parser's guard enforces the same limits before building the AST; this rule holds them
 * for ASTs from other front-ends. It measures iteratively and stops the walk when a limit is
 * exceeded, so a hostile tree cannot exhaust the stack of the rules that follow.
 */
import type { FilterNode } from '../../ast/nodes.js'
import { childrenOf } from '../../ast/visit.js'
import type { Rule } from '../context.js'

/** Whether a node opens a nesting level: implicit `And`s (several keys of one hash) do not. */
function opensLevel(node: FilterNode): boolean {
  if (node.kind === 'And') return node.path.endsWith('/and')
  return node.kind === 'Or' || node.kind === 'Not' || node.kind === 'Foreign'
}

export const requestWithinLimits: Rule = (context) => {
  const { limits } = context
  return {
    query(query) {
      if (query.sort.length > limits.maxSortClauses) {
        context.report({
          code: 'limit_exceeded',
          path: '/sort',
          message: `The sort has ${query.sort.length} clauses; the limit (maxSortClauses) is ${limits.maxSortClauses}.`,
          expected: `at most ${limits.maxSortClauses} clauses`,
          got: `${query.sort.length} clauses`,
        })
      }
    },
    filter(root) {
      const stack: { node: FilterNode; depth: number }[] = [{ node: root, depth: 1 }]
      let nodes = 0
      while (stack.length > 0) {
        const { node, depth } = stack.pop() as { node: FilterNode; depth: number }
        nodes++
        if (nodes > limits.maxNodes) {
          context.report({
            code: 'limit_exceeded',
            path: root.path,
            message: `The filter has more than ${limits.maxNodes} conditions and logical operators; the limit (maxNodes) is ${limits.maxNodes}.`,
            expected: `at most ${limits.maxNodes} nodes`,
            got: `more than ${limits.maxNodes}`,
          })
          context.stop()
          return
        }
        const childDepth = opensLevel(node) ? depth + 1 : depth
        const children = childrenOf(node)
        if (children.length > 0 && childDepth > limits.maxDepth) {
          context.report({
            code: 'limit_exceeded',
            path: children[0]?.path ?? node.path,
            message: `The filter nests deeper than ${limits.maxDepth} levels of and/or/not/foreign; the limit (maxDepth) is ${limits.maxDepth}.`,
            expected: `at most ${limits.maxDepth} levels`,
            got: `more than ${limits.maxDepth}`,
          })
          context.stop()
          return
        }
        if (node.kind === 'Condition' && Array.isArray(node.value) && node.value.length > limits.maxListLength) {
          context.report({
            code: 'limit_exceeded',
            path: node.path,
            message: `The list of "${node.operator}" on field "${node.field}" has ${node.value.length} values; the limit (maxListLength) is ${limits.maxListLength}.`,
            expected: `at most ${limits.maxListLength} values`,
            got: `${node.value.length} values`,
          })
        }
        if (node.kind === 'Condition') {
          const values: readonly unknown[] = Array.isArray(node.value) ? node.value : [node.value]
          const long = values.find((v): v is string => typeof v === 'string' && v.length > limits.maxStringLength)
          if (long !== undefined) {
            context.report({
              code: 'limit_exceeded',
              path: node.path,
              message: `A value of "${node.operator}" on field "${node.field}" has ${long.length} characters; the limit (maxStringLength) is ${limits.maxStringLength}.`,
              expected: `at most ${limits.maxStringLength} characters`,
              got: `${long.length} characters`,
            })
          }
        }
        for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i] as FilterNode, depth: childDepth })
      }
    },
  }
}
