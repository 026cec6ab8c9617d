/**
 * No import cycle joins src/records and src/store: the store (tables, migrations, loading) sits
 * below the records that read it, so a record module may import the store and never the reverse
 * along any path that comes back. Type-only imports count: they tie the two rooms together just
 * the same for whoever reads or moves the code. The graph is read with TypeScript's own import
 * scanner (`ts.preProcessFile`), relative imports only.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const SRC = fileURLToPath(new URL('../../src', import.meta.url))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Every file of `files` each file imports (or re-exports from), by relative specifier. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target))
    graph.set(file, targets)
  }
  return graph
}

/** The strongly connected components of more than one file (Tarjan), each a set of files on a cycle. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string): void => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) found.push(component)
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

const room = (file: string) => relative(SRC, file).split('/')[0]

describe('import cycles between src/records and src/store', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([['records/a.ts', ['store/b.ts']], ['store/b.ts', ['store/c.ts']], ['store/c.ts', ['records/a.ts']], ['records/d.ts', ['store/b.ts']]])
    expect(cycles(graph).map((c) => c.sort())).toEqual([['records/a.ts', 'store/b.ts', 'store/c.ts']])
  })

  it('has none in src', () => {
    const graph = importGraph(sourceFiles(SRC))
    // The scanner sees the imports: records/search.ts reads the store's search tables.
    expect(graph.get(join(SRC, 'records', 'search.ts'))).toContain(join(SRC, 'store', 'schema', 'search-tables.ts'))
    const across = cycles(graph)
      .filter((component) => component.some((f) => room(f) === 'records') && component.some((f) => room(f) === 'store'))
      .map((component) => component.map((f) => relative(SRC, f)).sort())
    expect(across).toEqual([])
  })
})
