import { defineConfig } from 'vitest/config'

/**
 * Two projects: every test on the default backend (SQLite), and the HTTP suite again with the app
 * serving a PostgreSQL copy of the same fixture (test/http/harness.ts reads VENTUREQL_TEST_BACKEND).
 * The files left out of the second are about SQLite itself (its lock codes and worker pool, the
 * serve CLI and its shutdown over files, the /docs page in a browser, served by the CLI over a
 * file); PostgreSQL's own faults, servers and budgets are in test/postgres/.
 */
const SQLITE_ONLY_HTTP = ['test/http/errors.test.ts', 'test/http/budgets.test.ts', 'test/http/serve.test.ts', 'test/http/shutdown.test.ts', 'test/http/docs-browser.test.ts']

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'http-on-postgres',
          include: ['test/http/**/*.test.ts'],
          exclude: SQLITE_ONLY_HTTP,
          env: { VENTUREQL_TEST_BACKEND: 'postgres' },
        },
      },
    ],
  },
  bench: {
    include: ['bench/**/*.bench.ts'],
  },
})
