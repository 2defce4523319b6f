// `npm run reliability`: runs the reliability and security projects of jest
// and the table of bad inputs (a unit test: pure readers decide), then prints
// one table from the tallies the suites wrote (see
// test-support/tallies.ts) and jest's own results.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reliability-'))
const report = path.join(dir, 'jest.json')
const counts = path.join(dir, 'counts')
const jest = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    'node_modules/jest/bin/jest.js',
    '--selectProjects',
    'reliability',
    'security',
    'unit',
    '--testPathPatterns',
    '__tests__/(reliability|security)/|__tests__/unit/input-errors',
    '--json',
    `--outputFile=${report}`,
    ...process.argv.slice(2)
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_NO_WARNINGS: '1',
      RELIABILITY_COUNTS_DIR: counts
    }
  }
)

let results
try {
  results = JSON.parse(fs.readFileSync(report, 'utf8'))
} catch {
  results = undefined
}
// Tallies of tests that passed only: a failed test's partial tally is not a result.
const passed = new Set()
const failedNames = []
// The security suite names each attack 'attack: ...'; passing means defeated.
const attacks = { tried: 0, defeated: 0 }
for (const file of results?.testResults ?? []) {
  for (const t of file.assertionResults ?? []) {
    const name = [...(t.ancestorTitles ?? []), t.title].join(' ')
    if (t.status === 'passed') passed.add(name)
    else if (t.status === 'failed') failedNames.push(name)
    if (/\battack:/i.test(t.title) && t.status !== 'pending') {
      attacks.tried++
      if (t.status === 'passed') attacks.defeated++
    }
  }
}
const totals = {
  badInputs: 0,
  propertyCases: 0,
  faultScenarios: 0,
  githubFaults: 0,
  leakScans: 0,
  leaks: 0
}
const countsFile = path.join(counts, 'counts.jsonl')
const lines = fs.existsSync(countsFile)
  ? fs.readFileSync(countsFile, 'utf8').split('\n').filter(Boolean)
  : []
for (const line of lines) {
  const { what, n, test } = JSON.parse(line)
  if (!(what in totals)) continue
  // Leak findings count wherever they were found, passed test or not.
  if (what === 'leaks' || passed.has(test)) totals[what] += n
}

const failedTests = results
  ? results.numFailedTests + results.numRuntimeErrorTestSuites
  : 1
const rows = [
  ['Bad inputs tried and handled', totals.badInputs],
  ['Property cases run', totals.propertyCases],
  ['Fault scenarios survived', totals.faultScenarios],
  ['GitHub faults survived', totals.githubFaults],
  ['Attacks tried / defeated', `${attacks.tried} / ${attacks.defeated}`],
  [`Secrets leaked (${totals.leakScans} scans)`, totals.leaks]
]
const width = Math.max(...rows.map(([label]) => label.length))
console.log('')
if (failedNames.length) console.log(`Failed: ${failedNames.join('; ')}`)
console.log(`${'Reliability'.padEnd(width)} | Count`)
console.log(`${'-'.repeat(width)} | -----`)
for (const [label, value] of rows)
  console.log(`${label.padEnd(width)} | ${value}`)
console.log(`${results?.numPassedTests ?? 0} passed, ${failedTests} failed`)
const ok =
  jest.status === 0 &&
  failedTests === 0 &&
  totals.leaks === 0 &&
  attacks.defeated === attacks.tried &&
  totals.badInputs >= 40
process.exit(ok ? 0 : 1)
