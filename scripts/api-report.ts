/**
 * @module `npm run api-report`: writes api-report/*.api.md, the public surface of each entry point
 * of the package (`ventureql`, `ventureql/http`, `ventureql/internal`, `ventureql/testing`) as api-extractor reports it.
 * `checkApiReports()` is the same run without writing: test/package/api-report.test.ts fails when
 * an entry point's surface differs from its committed report, so the surface changes only on
 * purpose (change it, run `npm run api-report`, commit the report with the change).
 *
 * The input is the declarations `tsc` emits from src/ (api-report/tsconfig.json) into a temporary
 * folder under test-output/, not dist/: the check then never depends on whether dist/ is current, and never races a
 * test that rebuilds it.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Extractor, ExtractorConfig, type ExtractorMessage } from '@microsoft/api-extractor'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CONFIG = join(ROOT, 'api-report', 'api-extractor.json')

/** api-extractor's notes on the report file itself; the outcome's `changed` says the same. */
const REPORT_STATE_MESSAGES = new Set<string>(['console-api-report-changed', 'console-api-report-copied', 'console-api-report-created', 'console-api-report-missing'])

/** Each entry point of package.json "exports": its declaration under src/ and its report. */
export const API_ENTRY_POINTS = [
  { subpath: '.', declaration: 'src/index.d.ts', report: 'ventureql.api.md' },
  { subpath: './http', declaration: 'src/http/index.d.ts', report: 'ventureql-http.api.md' },
  { subpath: './internal', declaration: 'src/internal.d.ts', report: 'ventureql-internal.api.md' },
  { subpath: './testing', declaration: 'src/testing/index.d.ts', report: 'ventureql-testing.api.md' },
] as const

export interface ApiReportOutcome {
  readonly report: string
  /** The entry point's surface differs from the committed report (written anew when not checking). */
  readonly changed: boolean
  /** api-extractor's errors and warnings (a declaration it cannot analyse, a compiler error). */
  readonly problems: readonly string[]
}

/** Runs api-extractor on every entry point; `check`: compare with the committed reports, write nothing. */
export async function runApiReports(check: boolean): Promise<ApiReportOutcome[]> {
  // Inside the repository (test-output/ is ignored by git), so that the declarations' imports of
  // kysely, hono, pino... resolve from its node_modules. api-extractor writes each report into the
  // run's own folder; the run's folder name is taken out of it (it names declarations by path) and
  // the result compared with, or copied over, the committed report.
  mkdirSync(join(ROOT, 'test-output'), { recursive: true })
  const work = mkdtempSync(join(ROOT, 'test-output', 'api-report-'))
  try {
    const dts = join(work, 'dts')
    await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'api-report', 'tsconfig.json'), '--outDir', dts], { cwd: ROOT })
      .catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`tsc could not emit the declarations:\n${error.stdout ?? ''}${error.stderr ?? ''}`)
      })
    const base = ExtractorConfig.loadFile(CONFIG)
    const outcomes: ApiReportOutcome[] = []
    for (const entry of API_ENTRY_POINTS) {
      const mainEntryPointFilePath = join(dts, entry.declaration)
      const reportFolder = join(work, 'reports')
      mkdirSync(reportFolder, { recursive: true })
      const config = ExtractorConfig.prepare({
        configObjectFullPath: CONFIG,
        packageJsonFullPath: join(ROOT, 'package.json'),
        configObject: {
          ...base,
          projectFolder: ROOT,
          mainEntryPointFilePath,
          apiReport: { ...base.apiReport!, enabled: true, reportFileName: entry.report, reportFolder, reportTempFolder: join(work, 'temp') },
          // The program is the entry point's declarations alone, with the repository's compiler settings.
          compiler: { overrideTsconfig: { extends: join(ROOT, 'tsconfig.json'), compilerOptions: { skipLibCheck: true }, files: [mainEntryPointFilePath] } },
        },
      })
      const problems: string[] = []
      Extractor.invoke(config, {
        localBuild: true,
        messageCallback: (message: ExtractorMessage) => {
          if ((message.logLevel === 'error' || message.logLevel === 'warning') && !REPORT_STATE_MESSAGES.has(message.messageId)) {
            problems.push(`${message.logLevel} ${message.messageId}: ${message.text}${message.sourceFilePath ? ` (${message.sourceFilePath}:${message.sourceFileLine ?? 0})` : ''}`)
          }
          message.handled = true
        },
      })
      // api-extractor writes what it found into reportTempFolder on every run.
      // The analysis notes name a declaration by file, without its line: an edit above it is no change.
      const produced = readFileSync(join(work, 'temp', entry.report), 'utf8')
        .replaceAll(`${relative(ROOT, dts).split(sep).join('/')}/`, '')
        .replace(/^(\/\/ src\/\S+?\.d\.ts):\d+:\d+ - /gm, '$1 - ')
      const committedFile = join(ROOT, 'api-report', entry.report)
      const committed = existsSync(committedFile) ? readFileSync(committedFile, 'utf8') : undefined
      const changed = produced !== committed
      if (changed && !check) writeFileSync(committedFile, produced)
      outcomes.push({ report: entry.report, changed, problems })
    }
    return outcomes
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** The failures of a check, as one message that says what to do; empty when every report is current. */
export function describeFailures(outcomes: readonly ApiReportOutcome[]): string {
  const lines: string[] = []
  for (const o of outcomes) {
    if (o.changed) lines.push(`api-report/${o.report}: the public surface differs from the committed report`)
    for (const p of o.problems) lines.push(`api-report/${o.report}: ${p}`)
  }
  if (lines.length === 0) return ''
  return `${lines.join('\n')}\nIf the change is intended, run npm run api-report and commit api-report/ with it.`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check')
  const outcomes = await runApiReports(check)
  for (const o of outcomes) {
    console.log(`api-report/${o.report}: ${o.changed ? (check ? 'differs' : 'written') : 'unchanged'}`)
  }
  const failures = check ? describeFailures(outcomes) : outcomes.flatMap((o) => o.problems.map((p) => `api-report/${o.report}: ${p}`)).join('\n')
  if (failures) {
    console.error(failures)
    process.exitCode = 1
  }
}
