/**
 * @module Did-you-mean suggestions for unknown names (datasets, fields, operators, enum values),
 * after graphql-js's `suggestionList`: candidates within an edit distance that grows with the
 * length of the input, best first, at most five. People mistype field names far more often than
 * they invent them, so a short, ranked list is worth more than the full `allowed` list.
 */

/** Most suggestions offered for one unknown name; more reads as noise. */
export const MAX_SUGGESTIONS = 5

/**
 * The options closest to `input`, best first: case-insensitive exact matches (alone, when there
 * are any), else options within
 * the Damerau-Levenshtein threshold (0.4 × length + 1, as graphql-js), then options that contain
 * the input (for 3+ characters: `funding` finds `total_funding`).
 */
export function suggestionList(input: string, options: Iterable<string>, max = MAX_SUGGESTIONS): string[] {
  return ranked(input, options, Math.floor(input.length * 0.4) + 1, true, max)
}

/**
 * Near misses of a name a client may well have meant to send as it is (a query parameter of
 * another endpoint or service, a tracking parameter), best first: case-insensitive exact matches
 * (alone, when there are any), else options within `nearMissDistance(input)` edits. Stricter than
 * `suggestionList`, which answers names that are certainly wrong: a name that is none of these is
 * far from every option, and is better ignored than refused.
 */
export function nearMisses(input: string, options: Iterable<string>, max = MAX_SUGGESTIONS): string[] {
  return ranked(input, options, nearMissDistance(input), false, max)
}

/**
 * Edits (Damerau-Levenshtein: insert, delete or change a character, swap two adjacent ones) a near
 * miss may be from a name: none under 3 characters (only the case may differ), 1 for 3 to 5
 * characters, 2 from 6. `contry` is a near miss of `country`, `ref` is not one of `key`, nor
 * `utm_term` of `term`.
 */
export function nearMissDistance(input: string): number {
  return input.length < 3 ? 0 : input.length < 6 ? 1 : 2
}

function ranked(input: string, options: Iterable<string>, threshold: number, containing: boolean, max: number): string[] {
  const lowerInput = input.toLowerCase()
  const scored: { option: string; score: number }[] = []
  const seen = new Set<string>()
  for (const option of options) {
    if (seen.has(option)) continue
    seen.add(option)
    const lowerOption = option.toLowerCase()
    let score: number | undefined
    if (lowerOption === lowerInput) score = 0
    else {
      const distance = threshold > 0 ? lexicalDistance(lowerInput, lowerOption, threshold) : undefined
      if (distance !== undefined) score = distance
      else if (containing && lowerInput.length >= 3 && lowerOption.includes(lowerInput)) score = threshold + 1
    }
    if (score !== undefined) scored.push({ option, score })
  }
  scored.sort((a, b) => a.score - b.score || naturalCompare(a.option, b.option))
  // Only the case differs: that is what was meant, the near misses would be noise.
  const exact = scored.filter((s) => s.score === 0)
  return (exact.length > 0 ? exact : scored).slice(0, max).map((s) => s.option)
}

/** `' Did you mean "a", "b" or "c"?'`, or '' when there is nothing to suggest. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return ''
  const quoted = suggestions.map((s) => `"${s}"`)
  const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`
  return ` Did you mean ${list}?`
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), or undefined when
 * it exceeds `threshold`. The length check first keeps long unrelated names cheap to reject.
 */
function lexicalDistance(a: string, b: string, threshold: number): number | undefined {
  if (a === b) return 0
  if (Math.abs(a.length - b.length) > threshold) return undefined
  // Three rolling rows are enough for the transposition term.
  let prevPrev: number[] = []
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (prevPrev[j - 2] ?? 0) + 1)
      }
      row.push(value)
      if (value < rowMin) rowMin = value
    }
    if (rowMin > threshold) return undefined
    prevPrev = prev
    prev = row
  }
  const distance = prev[b.length] ?? Number.POSITIVE_INFINITY
  return distance <= threshold ? distance : undefined
}

function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true })
}
