/**
 * @module Rule: operator allowed for field type. Each operator applies only to the field types
 * listed in the operator table (`gt` on a tags field, `contains` on an integer are errors). See
 * grammar-docs/language.md, "Operators".
 */
import { operatorsFor } from '../../catalog/operators.js'
import { q, type Rule } from '../context.js'

export const operatorAllowedForFieldType: Rule = (context) => ({
  condition(node, { field, operatorAllowed }) {
    if (!field || operatorAllowed) return
    const allowed = operatorsFor(field.type.kind)
    const hint = field.type.kind !== 'tags' ? ''
      : node.operator === 'ne' || node.operator === 'nin' ? ' For "none of these values" on a tags field use "has_none".'
        : node.operator === 'is_null' ? ' A tags field is never null; use "is_empty".'
          : ''
    context.report({
      code: 'operator_not_allowed',
      path: node.path,
      message: `Operator ${q(node.operator)} does not apply to field ${q(field.name)} (${field.type.kind}); it takes ${allowed.join(', ')}.${hint}`,
      expected: `one of: ${allowed.join(', ')}`,
      got: q(node.operator),
      allowed,
    })
  },
})
