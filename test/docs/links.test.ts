/**
 * @module The README's links stay inside the repository and the package (issue 11 item 7): every
 * Markdown link in README.md, and in every document it leads to, is an anchor of that document or
 * a relative path to a file that exists here, whose heading anchor (if any) exists, and that
 * `npm pack` ships; no link leaves for the web or for a folder outside the repository.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, test } from 'vitest'

const root = join(import.meta.dirname, '..', '..')

/** `[text](target)` links outside fenced code blocks, with their line numbers. */
export function markdownLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = []
  let fenced = false
  markdown.split('\n').forEach((text, index) => {
    if (/^\s*```/.test(text)) fenced = !fenced
    if (fenced) return
    const unquoted = text.replace(/`[^`]*`/g, '')
    for (const m of unquoted.matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: m[1]!, line: index + 1 })
  })
  return links
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const text of markdown.split('\n')) {
    if (/^\s*```/.test(text)) fenced = !fenced
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(text)
    if (!m) continue
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  return new Set((JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path))
}

/** README.md and every Markdown file reachable from it by relative links, with their problems. */
function crawl(): { visited: string[]; linkedFiles: Set<string>; problems: string[] } {
  const queue = ['README.md']
  const visited: string[] = []
  const linkedFiles = new Set<string>()
  const problems: string[] = []
  while (queue.length > 0) {
    const file = queue.shift()!
    if (visited.includes(file)) continue
    visited.push(file)
    const markdown = readFileSync(join(root, file), 'utf8')
    for (const { target, line } of markdownLinks(markdown)) {
      const where = `${file}:${line}: ${target}`
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        problems.push(`${where} leaves the repository (links must be relative paths to files shipped with it)`)
        continue
      }
      const [pathPart, anchor] = target.split('#') as [string, string | undefined]
      const resolved = pathPart === '' ? file : normalize(join(dirname(file), decodeURIComponent(pathPart))).split('\\').join('/')
      if (resolved.startsWith('..')) {
        problems.push(`${where} points outside the repository`)
        continue
      }
      if (!existsSync(join(root, resolved))) {
        problems.push(`${where}: no such file`)
        continue
      }
      if (statSync(join(root, resolved)).isDirectory()) {
        problems.push(`${where} is a folder: link a file in it (a package has no folder pages)`)
        continue
      }
      linkedFiles.add(resolved)
      if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(readFileSync(join(root, resolved), 'utf8')).has(anchor)) {
        problems.push(`${where}: ${resolved} has no heading with anchor #${anchor}`)
      }
      if (resolved.endsWith('.md') && !visited.includes(resolved)) queue.push(resolved)
    }
  }
  return { visited, linkedFiles, problems }
}

describe('README links', () => {
  const { visited, linkedFiles, problems } = crawl()

  test('every link, from the README down, is a relative path to an existing file and heading', () => {
    expect(problems).toEqual([])
    // The crawl reaches the reference (the API description, list parameters, records, the language)
    // and every guide, the license and the changelog.
    for (const doc of [
      'grammar-docs/reference/api.md', 'grammar-docs/list-parameters.md', 'grammar-docs/records.md', 'grammar-docs/language.md',
      'grammar-docs/guides/index.md', 'grammar-docs/guides/serving.md', 'grammar-docs/guides/embedding.md',
      'grammar-docs/guides/postgresql.md', 'grammar-docs/guides/cli.md', 'grammar-docs/guides/performance.md', 'CHANGELOG.md',
    ]) {
      expect(visited).toContain(doc)
    }
  })

  test('the README reaches the license', () => {
    expect([...linkedFiles]).toContain('LICENSE')
  })

  test('the npm package ships every file those links reach', () => {
    const packed = packedFiles()
    const missing = [...linkedFiles].filter((f) => !packed.has(f))
    expect(missing, 'add them to "files" in package.json').toEqual([])
  })

  test('the README names no file outside the repository', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    expect(readme).not.toMatch(/\.\.\/[\w.-]+\//)
  })
})

describe('the link checker itself', () => {
  test('finds links outside code, and GitHub anchors with repeats and punctuation', () => {
    const md = '# A `b` (c)\n[x](y.md#z) `[no](skip.md)`\n```\n[no](fenced.md)\n```\n## A b c\n## A b c'
    expect(markdownLinks(md)).toEqual([{ target: 'y.md#z', line: 2 }])
    expect([...headingAnchors(md)]).toEqual(['a-b-c', 'a-b-c-1', 'a-b-c-2'])
  })
})
