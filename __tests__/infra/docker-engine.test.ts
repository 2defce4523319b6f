// scripts/docker-engine.sh against a fake `docker` and `dockerd` on PATH: the
// real daemon of a test machine must not be stopped or doubled. The fake
// daemon "answers" while its marker file exists, as `docker info` does while
// dockerd runs.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const SCRIPT = path.resolve('scripts/docker-engine.sh')

interface Rig {
  dir: string
  state: string
  marker: string
  run(
    command: string,
    extraEnv?: NodeJS.ProcessEnv
  ): { status: number | null; stderr: string }
}

function writeExecutable(file: string, text: string) {
  fs.writeFileSync(file, text, { mode: 0o755 })
}

function makeRig(dockerdBody: string): Rig {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-'))
  const bin = path.join(dir, 'bin')
  const state = path.join(dir, 'state')
  const marker = path.join(dir, 'answers')
  fs.mkdirSync(bin)
  writeExecutable(
    path.join(bin, 'docker'),
    `#!/bin/sh\n[ "$1" = info ] && [ -e "${marker}" ]\n`
  )
  // Parses --pidfile like dockerd, writes it, then runs the scenario body.
  writeExecutable(
    path.join(bin, 'dockerd'),
    `#!/bin/bash\nwhile [ $# -gt 0 ]; do [ "$1" = --pidfile ] && pidfile=$2; shift; done\n` +
      `echo $$ > "$pidfile"\nmarker="${marker}"\n${dockerdBody}\n`
  )
  for (const tool of ['mmdebstrap', 'unshare']) {
    writeExecutable(path.join(bin, tool), '#!/bin/sh\nexit 0\n')
  }
  writeExecutable(
    path.join(bin, 'apt-get'),
    '#!/bin/sh\necho "apt-get must not run: everything is installed" >&2\nexit 99\n'
  )
  return {
    dir,
    state,
    marker,
    run(command, extraEnv = {}) {
      const r = spawnSync('bash', [SCRIPT, command], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH}`,
          MASSGEN_ACTION_ENGINE_STATE: state,
          ...extraEnv
        },
        timeout: 30_000
      })
      return { status: r.status, stderr: r.stderr }
    }
  }
}

// A daemon that answers a moment after it starts and stops on SIGTERM.
const WELL_BEHAVED = `trap 'rm -f "$marker"; exit 0' TERM\nsleep 0.3\n: > "$marker"\nwhile :; do sleep 0.1; done`

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const rigs: Rig[] = []
afterEach(() => {
  for (const rig of rigs.splice(0)) {
    const pid = Number(
      fs.readFileSync(path.join(rig.state, 'dockerd.pid'), 'utf8').trim() || 0
    )
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL')
    fs.rmSync(rig.dir, { recursive: true, force: true })
  }
})
function rig(body: string) {
  const r = makeRig(body)
  rigs.push(r)
  fs.mkdirSync(r.state)
  fs.writeFileSync(path.join(r.state, 'dockerd.pid'), '')
  return r
}

test('start leaves a daemon that already answers alone, and stop then stops nothing', () => {
  const r = rig(WELL_BEHAVED)
  fs.writeFileSync(r.marker, '')
  const started = r.run('start')
  expect(started.status).toBe(0)
  expect(started.stderr).toMatch(/already answers/)
  expect(fs.existsSync(path.join(r.state, 'started-here'))).toBe(false)
  const stopped = r.run('stop')
  expect(stopped.status).toBe(0)
  expect(stopped.stderr).toMatch(/nothing stopped/)
  expect(fs.existsSync(r.marker)).toBe(true)
})

test('start starts dockerd and waits until it answers; start again is a no-op; stop stops it by pid; stop again is a no-op', () => {
  const r = rig(WELL_BEHAVED)
  const first = r.run('start')
  expect(first.status).toBe(0)
  expect(first.stderr).toMatch(/started dockerd \d+/)
  expect(fs.existsSync(r.marker)).toBe(true)
  const pid = Number(
    fs.readFileSync(path.join(r.state, 'started-here'), 'utf8')
  )
  expect(alive(pid)).toBe(true)

  const second = r.run('start')
  expect(second.status).toBe(0)
  expect(second.stderr).toMatch(/already answers/)
  expect(
    fs.readFileSync(path.join(r.state, 'started-here'), 'utf8').trim()
  ).toBe(String(pid))

  const stopped = r.run('stop')
  expect(stopped.status).toBe(0)
  expect(stopped.stderr).toMatch(new RegExp(`stopped dockerd ${pid}`))
  expect(alive(pid)).toBe(false)
  expect(fs.existsSync(r.marker)).toBe(false)

  const again = r.run('stop')
  expect(again.status).toBe(0)
  expect(again.stderr).toMatch(/nothing stopped/)
})

test('stop does not kill a process that reuses the recorded pid but is not our dockerd', () => {
  const r = rig(WELL_BEHAVED)
  // The recorded pid is this test's own process: alive, but not a dockerd.
  fs.writeFileSync(path.join(r.state, 'started-here'), String(process.pid))
  const stopped = r.run('stop')
  expect(stopped.status).toBe(0)
  expect(stopped.stderr).toMatch(/nothing stopped/)
})

test('start fails with the daemon log when dockerd exits while starting', () => {
  const r = rig('echo "failed to start daemon: scripted failure" >&2\nexit 1')
  const started = r.run('start')
  expect(started.status).toBe(1)
  expect(started.stderr).toMatch(/exited while starting/)
  expect(started.stderr).toMatch(/scripted failure/)
  expect(fs.existsSync(path.join(r.state, 'started-here'))).toBe(false)
})

test('start gives up after the wait limit and stops the daemon that never answered', () => {
  const r = rig(`trap 'exit 0' TERM\nwhile :; do sleep 0.1; done`)
  const started = r.run('start', { MASSGEN_ACTION_ENGINE_WAIT: '1' })
  expect(started.status).toBe(1)
  expect(started.stderr).toMatch(/did not answer within 1 s/)
  const pid = Number(fs.readFileSync(path.join(r.state, 'dockerd.pid'), 'utf8'))
  expect(alive(pid)).toBe(false)
})

test('an unknown command prints the usage', () => {
  const r = rig(WELL_BEHAVED)
  const result = r.run('restart')
  expect(result.status).toBe(2)
  expect(result.stderr).toMatch(/usage: .* start\|stop\|status/)
})
