// scripts/run-tests.mjs ends every run on 'N passed, N failed, N skipped',
// counted by scripts/count-reporter.mjs. With jest's `--json` report, one
// failure holding a circular error object made the report unwritable, and
// the closing line said '0 passed, 1 failed' whatever had run.
import { describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const RUN_TESTS = path.resolve('scripts/run-tests.mjs')

/** Runs run-tests.mjs over the given test files (name -> source) alone. */
function runOver(files: Record<string, string>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-counts-'))
  for (const [name, source] of Object.entries(files))
    fs.writeFileSync(path.join(dir, name), source)
  const config = { rootDir: dir, testMatch: ['<rootDir>/*.check.js'] }
  const run = spawnSync(
    process.execPath,
    [RUN_TESTS, '--config', JSON.stringify(config)],
    { encoding: 'utf8', timeout: 120_000 }
  )
  fs.rmSync(dir, { recursive: true, force: true })
  return run.stdout.trimEnd().split('\n')
}

describe('the closing line of scripts/run-tests.mjs', () => {
  it('counts what ran when a failure holds a circular error object', () => {
    const lines = runOver({
      'circular.check.js': [
        "test('passes', () => {})",
        "test('fails with a circular error', () => {",
        "  const error = new Error('circular')",
        '  error.details = { error }',
        '  throw error',
        '})'
      ].join('\n')
    })
    expect(lines.at(-1)).toBe('1 passed, 1 failed, 0 skipped')
  })

  it('counts a skipped test', () => {
    const lines = runOver({
      'skip.check.js':
        "test('passes', () => {})\ntest.skip('skipped', () => {})"
    })
    expect(lines.at(-1)).toBe('1 passed, 0 failed, 1 skipped')
  })
})
