// Runs jest and ends with the line 'N passed, N failed, N skipped', so a
// run that executed no test, or skipped one, is visible; a skipped test (or
// a todo) fails the run like a failed one. Extra arguments go to jest.
// .ci/run prints its own last line, 'N passed, N failed', from this one.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

// The end-to-end tests run dist/, not src/: a bundle older than the source
// it is built from would test the past. Rebuilt first when any input of the
// build changed after it (a fresh clone has them all at the same time).
const BUILD_INPUTS = [
  'src',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts/third-party-notices.mjs',
  'scripts/license-texts'
]
function newest(entry) {
  const stat = fs.statSync(entry)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(
    stat.mtimeMs,
    ...fs.readdirSync(entry).map((name) => newest(path.join(entry, name)))
  )
}
const bundle = 'dist/index.js'
const built = fs.existsSync(bundle) ? fs.statSync(bundle).mtimeMs : 0
if (Math.max(...BUILD_INPUTS.map(newest)) > built) {
  console.log('dist/ is older than its source: npm run package')
  const build = spawnSync('npm', ['run', '-s', 'package'], { stdio: 'inherit' })
  if (build.status !== 0) {
    console.log('0 passed, 1 failed, 0 skipped')
    process.exit(1)
  }
}

// Every temporary file of the run (the tests', the action's, MassGen's and
// its containers') goes under one folder, removed at the end: a run leaves
// hundreds of folders otherwise. Open to every user like /tmp itself: local
// mode's sandbox user and the runner-like user of the security tests write
// there too. Jest's cache stays where it was, so that it outlives the run.
const systemTemp = os.tmpdir()
const runTemp = fs.mkdtempSync(path.join(systemTemp, 'massgen-action-tests-'))
fs.chmodSync(runTemp, 0o1777)
const countsFile = path.join(runTemp, 'jest-counts.json')
const args = process.argv.slice(2)
const cache = args.some((a) => a.startsWith('--cacheDirectory'))
  ? []
  : [`--cacheDirectory=${path.join(systemTemp, 'jest-massgen-action')}`]
const jest = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    'node_modules/jest/bin/jest.js',
    '--reporters=default',
    `--reporters=${path.resolve('scripts/count-reporter.mjs')}`,
    ...cache,
    ...args
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_NO_WARNINGS: '1',
      TMPDIR: runTemp,
      MASSGEN_ACTION_TEST_COUNTS: countsFile
    }
  }
)
let passed
let failed
let skipped
try {
  ;({ passed, failed, skipped } = JSON.parse(
    fs.readFileSync(countsFile, 'utf8')
  ))
} catch {
  // No counts: jest itself failed before it finished a run.
  passed = 0
  failed = 1
  skipped = 0
}
try {
  fs.rmSync(runTemp, { recursive: true, force: true })
} catch (error) {
  // A file another user made and kept to itself: say where, do not fail.
  console.log(`left ${runTemp}: ${String(error)}`)
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
const ok = jest.status === 0 && failed === 0 && skipped === 0 && passed > 0
process.exit(ok ? 0 : 1)
