// Runs jest and ends with the plain line 'N passed, N failed' that CI reads,
// so a run that executed no test is visible. Extra arguments go to jest.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const report = path.join(
  fs.mkdtempSync(path.join(os.tmpdir(), 'jest-')),
  'report.json'
)
const jest = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    'node_modules/jest/bin/jest.js',
    '--json',
    `--outputFile=${report}`,
    ...process.argv.slice(2)
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_NO_WARNINGS: '1' } }
)
let passed
let failed
try {
  const result = JSON.parse(fs.readFileSync(report, 'utf8'))
  passed = result.numPassedTests
  failed = result.numFailedTests + result.numRuntimeErrorTestSuites
} catch {
  // No report: jest itself failed before running anything.
  passed = 0
  failed = 1
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(jest.status === 0 && failed === 0 && passed > 0 ? 0 : 1)
