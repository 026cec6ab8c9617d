/**
 * @module Rule: values fit the field type. Each value converts to its field's type (numeric strings
 * to numbers, integers integral, real calendar dates, booleans), and null appears only as `eq`.
 * Enum spellings are the next rule's business. See grammar-docs/language.md, "Values", and
 * grammar-docs/language.md, "Null".
 */
import { OPERATORS } from '../../catalog/operators.js'
import { previewValue } from '../../errors/format.js'
import { q, type Rule } from '../context.js'
import { convertOperand } from '../values.js'

export const valuesFitFieldType: Rule = (context) => ({
  condition(node, { field, operatorAllowed }) {
    if (!field || !operatorAllowed) return
    for (const problem of convertOperand(node, field).problems) {
      const got = previewValue(problem.value)
      const subject = `${q(node.operator)} on field ${q(field.name)} (${field.type.kind})`
      let message: string
      switch (problem.kind) {
        case 'enum':
          continue
        case 'null':
          // Null inside a value list is no-accidental-match-all's to report.
          if (OPERATORS[node.operator].operand === 'list') continue
          message = node.operator === 'ne'
            ? `${subject} cannot take null; to select records that have a value use {"is_null": false}.`
            : `${subject} needs a value, not null; null is only allowed as {"eq": null} (meaning {"is_null": true}).`
          break
        case 'shape':
          message = `${subject} takes ${problem.expected}; got ${got}.`
          break
        case 'type':
          message = `${subject} takes ${problem.expected}; got ${got}${problem.reason ? `, ${problem.reason}` : ''}.`
          break
      }
      context.report({ code: 'invalid_value', path: problem.path, message, expected: problem.expected, got })
    }
  },
})
