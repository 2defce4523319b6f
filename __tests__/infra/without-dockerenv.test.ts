// scripts/without-dockerenv.sh: the command sees no /.dockerenv (so MassGen's
// Docker mode really uses Docker on a machine that is itself a container),
// and everything else is the machine as it is. Needs root: skipped where a
// private mount namespace cannot be made.
import {
  spawnSync,
  type SpawnSyncOptionsWithStringEncoding
} from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const SCRIPT = path.resolve('scripts/without-dockerenv.sh')
const canUnshare =
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'])
    .status === 0
const dockerAnswers =
  spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 }).status ===
  0
const maybe = canUnshare ? test : test.skip

function hidden(
  args: string[],
  options: Omit<SpawnSyncOptionsWithStringEncoding, 'encoding'> = {}
) {
  return spawnSync(SCRIPT, args, {
    timeout: 60_000,
    ...options,
    encoding: 'utf8'
  })
}

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'without-dockerenv-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

maybe('the command sees no /.dockerenv, and the machine keeps its own', () => {
  const before = fs.existsSync('/.dockerenv')
  const r = hidden(['sh', '-c', 'test ! -e /.dockerenv && echo hidden'])
  expect(r.stderr).toBe('')
  expect(r.stdout).toBe('hidden\n')
  expect(fs.existsSync('/.dockerenv')).toBe(before)
})

maybe(
  'working directory, environment, stdin, stdout, stderr and exit status pass through',
  () => {
    const r = hidden(
      ['sh', '-c', 'pwd; echo "$PROBE_VALUE"; cat; echo oops >&2; exit 7'],
      {
        cwd: dir,
        env: { ...process.env, PROBE_VALUE: 'kept' },
        input: 'from stdin\n'
      }
    )
    expect(r.status).toBe(7)
    expect(r.stdout).toBe(`${fs.realpathSync(dir)}\nkept\nfrom stdin\n`)
    expect(r.stderr).toBe('oops\n')
  }
)

maybe('a file written inside lands on the real disk', () => {
  const file = path.join(dir, 'written-inside')
  const r = hidden(['sh', '-c', `echo payload > "${file}"`])
  expect(r.status).toBe(0)
  expect(fs.readFileSync(file, 'utf8')).toBe('payload\n')
})

maybe(
  "the machine's other top-level entries are there (symlinks, /proc, /dev)",
  () => {
    const r = hidden([
      'sh',
      '-c',
      'test -x /bin/sh && test -r /proc/self/status && test -c /dev/null && test -d /tmp && echo ok'
    ])
    expect(r.stdout).toBe('ok\n')
  }
)

;(canUnshare && dockerAnswers ? test : test.skip)(
  'the Docker daemon answers inside when it answers outside',
  () => {
    const r = hidden(['docker', 'info', '--format', '{{.ServerVersion}}'])
    expect(r.status).toBe(0)
    expect(r.stdout.trim()).not.toBe('')
  }
)

test('without a command it prints the usage', () => {
  const r = hidden([])
  expect(r.status).toBe(2)
  expect(r.stderr).toMatch(/usage: .*without-dockerenv\.sh CMD \[ARGS\.\.\.\]/)
})
