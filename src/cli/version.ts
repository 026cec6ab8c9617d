/**
 * @module The version `ventureql --version` prints: the `version` of this package's package.json,
 * found by walking up from this module (it sits two levels deep in src/cli, one in dist).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export function packageVersion(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from))
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown }
      if (pkg.name === 'ventureql' && typeof pkg.version === 'string') return pkg.version
    }
    const parent = dirname(dir)
    if (parent === dir) return 'unknown'
    dir = parent
  }
}
