// The setup before MassGen starts: its parts at once (prepare-run.ts), the
// cache policy (which ref saves, what is restored, under which key), and the
// post step's save that refuses an install an agent changed. No timed
// assertions: the order of events the stand-ins record.
import { describe, expect, it, beforeEach } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { prepareRun } from '../../src/prepare/prepare-run.js'
import { concurrently, describeSetup } from '../../src/prepare/setup.js'
import {
  pendingSaveFor,
  saveDeferredInstall,
  savesOnRef
} from '../../src/prepare/install/deferred-save.js'
import { fingerprintTree } from '../../src/prepare/install/fingerprint.js'
import {
  MARKER_FILE,
  markerText,
  venvLayout,
  type VenvLayout
} from '../../src/prepare/install/layout.js'
import { pythonClass } from '../../src/prepare/install/lock.js'
import { relinkInterpreter } from '../../src/prepare/install/relink.js'
import {
  makeRunCopy,
  removeRunCopy
} from '../../src/prepare/install/run-copy.js'
import { prepareMassgen } from '../../src/prepare/massgen.js'
import type { CacheStore } from '../../src/prepare/install/cache.js'
import { readSettings } from '../../src/inputs/settings.js'
import { timingsSection } from '../../src/report/timings.js'
import type { ExecResult, ProcessRunner } from '../../src/core/process.js'

const PROBE_OUT = '3.11.7\nlinux\nx86_64\n/usr/bin/python3.11\n'
const OK: ExecResult = { exitCode: 0, signal: null, stdout: '', stderr: '' }
const CACHE_ENV = {
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-value',
  ACTIONS_RESULTS_URL: 'http://127.0.0.1:1/'
}
const quiet = { info() {}, warning() {}, debug() {} }

function touch(file: string, text = '') {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text, { mode: 0o755 })
}

function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/** Lets every pending callback run (no timer involved). */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
}

/**
 * python3, uv and docker as stand-ins: `docker pull` and MassGen's install
 * wait until the test lets them go; every start and end is recorded.
 */
function gatedRunner(events: string[]) {
  const pull = deferred()
  const install = deferred()
  const runner: ProcessRunner = {
    start() {
      throw new Error('not used')
    },
    async exec(command, args) {
      if (command === 'docker') {
        if (args[0] === 'info') return { ...OK, stdout: '28.0.4\n' }
        if (args[0] === 'image') {
          // Absent until pulled.
          return events.includes('end docker pull')
            ? { ...OK, stdout: 'sha256:' + 'a'.repeat(64) }
            : { ...OK, exitCode: 1 }
        }
        if (args[0] === 'pull') {
          events.push('start docker pull')
          await pull.promise
          events.push('end docker pull')
          return OK
        }
      }
      if (args[0] === '-c') return { ...OK, stdout: PROBE_OUT }
      const target = args.indexOf('--target')
      if (target !== -1) {
        touch(path.join(args[target + 1]!, 'bin', 'uv'))
        return OK
      }
      if (args[0] === 'venv') {
        touch(path.join(args[args.length - 1]!, 'bin', 'python'))
        return OK
      }
      if (args[0] === 'pip' && args[1] === 'install') {
        events.push('start MassGen install')
        await install.promise
        const bin = path.dirname(args[args.indexOf('--python') + 1]!)
        touch(path.join(bin, 'massgen'), '#!/bin/sh\n')
        events.push('end MassGen install')
        return OK
      }
      if (args[0] === 'pip' && args[1] === 'uninstall') return OK
      return {
        ...OK,
        exitCode: 99,
        stderr: `unexpected ${command} ${args.join(' ')}`
      }
    }
  }
  return { runner, pull, install }
}

let temp: string
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'setup-test-'))
})

function settingsFor(inputs: Record<string, string>) {
  return readSettings({
    getInput: (name) => inputs[name] ?? '',
    env: {},
    workspace: temp
  })
}

describe('the setup runs its parts at once', () => {
  it('the pull request reads, the image pull and the MassGen install all start before any ends', async () => {
    const events: string[] = []
    const { runner, pull, install } = gatedRunner(events)
    const reads = deferred<string>()
    const configured = (async () => {
      events.push('start pull request reads')
      const value = await reads.promise
      events.push('end pull request reads')
      return value
    })()
    const done = prepareRun(
      settingsFor({ docker: 'true' }),
      runner,
      temp,
      configured,
      {
        env: {
          PATH: '/usr/bin:/bin',
          RUNNER_TOOL_CACHE: path.join(temp, 'tc')
        },
        log: quiet,
        insideContainer: () => false
      }
    )
    await settle()
    expect([...events].sort()).toEqual([
      'start MassGen install',
      'start docker pull',
      'start pull request reads'
    ])
    // Each ends in its own time, in any order: here the reverse of a series.
    install.resolve()
    await settle()
    reads.resolve('config')
    await settle()
    pull.resolve()
    const prepared = await done
    expect(events.slice(3)).toEqual([
      'end MassGen install',
      'end pull request reads',
      'end docker pull'
    ])
    expect(prepared.config).toBe('config')
    expect(prepared.installation.source).toBe('installed')
    expect(prepared.dockerImage).toContain('sha256:')
    expect(prepared.timings.phases.map((p) => p.name).sort()).toEqual([
      'Docker image',
      'MassGen',
      'pull request and config'
    ])
  })

  it("Docker mode's read container starts once the image and the config are there, while MassGen still installs", async () => {
    const events: string[] = []
    const { runner, pull, install } = gatedRunner(events)
    const reads = deferred<string>()
    const done = prepareRun(
      settingsFor({ docker: 'true' }),
      runner,
      temp,
      reads.promise,
      {
        env: {
          PATH: '/usr/bin:/bin',
          RUNNER_TOOL_CACHE: path.join(temp, 'tc')
        },
        log: quiet,
        insideContainer: () => false,
        withImage: async (config) => {
          events.push(`start read container for ${config}`)
        }
      }
    )
    await settle()
    pull.resolve()
    await settle()
    // The image is there, the config is not yet: nothing to mount.
    expect(events.some((e) => e.startsWith('start read container'))).toBe(false)
    reads.resolve('config')
    await settle()
    expect(events).toContain('start read container for config')
    expect(events).not.toContain('end MassGen install')
    install.resolve()
    const prepared = await done
    expect(prepared.timings.phases.map((p) => p.name).sort()).toEqual([
      'Docker image',
      'MassGen',
      'pull request and config'
    ])
  })

  it('local mode has no image phase', async () => {
    const events: string[] = []
    const { runner, install } = gatedRunner(events)
    install.resolve()
    const prepared = await prepareRun(
      settingsFor({ docker: 'false' }),
      runner,
      temp,
      Promise.resolve('c'),
      {
        env: { PATH: '/usr/bin', RUNNER_TOOL_CACHE: path.join(temp, 'tc') },
        log: quiet
      }
    )
    expect(prepared.dockerImage).toBeUndefined()
    expect(prepared.timings.phases.map((p) => p.name)).toEqual([
      'pull request and config',
      'MassGen'
    ])
    expect(events.some((e) => e.includes('docker'))).toBe(false)
  })

  it('fails with the first failure, without waiting for the other parts', async () => {
    const slow = deferred()
    await expect(
      concurrently({
        a: { name: 'slow', run: () => slow.promise },
        b: {
          name: 'broken',
          run: () => Promise.reject(new Error('no daemon'))
        }
      })
    ).rejects.toThrow('no daemon')
    slow.resolve()
  })

  it('measures the critical path against the longest phase', async () => {
    let clock = 0
    const ticks = [0, 0, 0, 30, 41]
    const { timings } = await concurrently(
      {
        a: { name: 'image', run: async () => undefined },
        b: { name: 'MassGen', run: async () => undefined }
      },
      () => (clock = ticks.shift() ?? clock) * 1000
    )
    expect(timings.criticalPath).toBe(41)
    expect(describeSetup(timings)).toBe(
      'image 30.0 s, MassGen 41.0 s; critical path 41.0 s, x1.00 its longest phase (MassGen)'
    )
  })
})

describe('cache policy', () => {
  it("auto saves on a branch, never on a pull request's ref", () => {
    expect(savesOnRef('auto', 'refs/heads/main')).toBe(true)
    expect(savesOnRef('auto', 'refs/heads/feature')).toBe(true)
    expect(savesOnRef('auto', 'refs/pull/17/merge')).toBe(false)
    expect(savesOnRef('auto', 'refs/pull/17/head')).toBe(false)
    expect(savesOnRef('always', 'refs/pull/17/merge')).toBe(true)
    expect(savesOnRef('never', 'refs/heads/main')).toBe(false)
  })

  it('cache-save is read, checked and named in its error', () => {
    expect(settingsFor({}).cacheSave).toBe('auto')
    expect(settingsFor({ 'cache-save': ' Always ' }).cacheSave).toBe('always')
    expect(() => settingsFor({ 'cache-save': 'sometimes' })).toThrow(
      /Input 'cache-save': got 'sometimes', expected 'auto'.*'always' or 'never'/
    )
  })

  const fakeCache = (onRestore?: () => string | undefined) => {
    const calls: string[] = []
    const cache: CacheStore = {
      async restore(_paths, key) {
        calls.push(`restore ${key}`)
        return onRestore?.()
      },
      async save(paths, key) {
        calls.push(`save ${key} ${paths.join(',')}`)
      }
    }
    return { cache, calls }
  }

  const prepare = (
    cache: CacheStore,
    saveCache: boolean,
    runner = gatedRunner([])
  ) => {
    runner.install.resolve()
    return prepareMassgen(runner.runner, {
      version: '0.1.97',
      command: undefined,
      docker: false,
      useCache: true,
      needsExtras: false,
      saveCache,
      toolCacheDir: path.join(temp, 'tc'),
      env: { PATH: '/usr/bin:/bin', ...CACHE_ENV },
      log: quiet,
      cache
    })
  }

  it('a pull request restores the key a default-branch run saves, and leaves nothing to save', async () => {
    // The default branch: installs, and leaves its save to the post step.
    const main = fakeCache()
    const first = await prepare(main.cache, true)
    expect(main.calls).toHaveLength(1)
    expect(main.calls[0]).toMatch(/^restore /)
    // The core and the extras; a run that cannot reach the extras restores the core.
    const key = first.pendingSave?.entries[0]?.key
    expect(key).toMatch(
      /-without-claude-cli-video-audio-documents-memory-frameworks$/
    )
    // MassGen runs from the linked copy; the install is what is saved.
    expect(first.command).toBe(
      path.join(first.pendingSave!.runCopy, 'bin', 'massgen')
    )
    expect(path.dirname(first.pendingSave!.runCopy)).toBe(
      path.dirname(first.pendingSave!.dir)
    )
    // A pull request on the same runner image and Python minor: the same key.
    fs.rmSync(path.join(temp, 'tc'), { recursive: true })
    const pr = fakeCache()
    const second = await prepare(pr.cache, false)
    expect(pr.calls).toEqual([`restore ${key}`])
    expect(second.pendingSave).toBeUndefined()
    expect(second.command).toBe(
      path.join(first.pendingSave!.dir, 'bin', 'massgen')
    )
  })

  it("keys a locked install by Python minor and the lock's patch splits, not the patch", () => {
    const py = (version: string) => ({
      version,
      minor: version.split('.').slice(0, 2).join('.')
    })
    expect(pythonClass('0.1.97', py('3.11.7'))).toBe('py3.11.3+')
    expect(pythonClass('0.1.97', py('3.11.9'))).toBe('py3.11.3+')
    // redis needs async-timeout below 3.11.3: another install.
    expect(pythonClass('0.1.97', py('3.11.2'))).toBe('py3.11.0+')
    expect(pythonClass('0.1.97', py('3.12.1'))).toBe('py3.12')
    expect(pythonClass('0.1.97', py('3.12.9'))).toBe('py3.12')
    // No lock: any patch release may resolve differently.
    expect(pythonClass('0.1.98', py('3.12.1'))).toBeUndefined()
  })

  it("a restored install made on another patch release is pointed at this runner's Python", async () => {
    const python = path.join(temp, 'py-3.11.9', 'bin', 'python3.11')
    touch(python)
    const venv = path.join(temp, 'venv')
    fs.mkdirSync(path.join(venv, 'bin'), { recursive: true })
    fs.writeFileSync(
      path.join(venv, 'pyvenv.cfg'),
      'home = /opt/py-3.11.7/bin\nimplementation = CPython\nuv = 0.13.9\nversion_info = 3.11.7\nrelocatable = true\n'
    )
    fs.symlinkSync(
      '/opt/py-3.11.7/bin/python3',
      path.join(venv, 'bin', 'python')
    )
    fs.symlinkSync('python', path.join(venv, 'bin', 'python3'))
    expect(
      relinkInterpreter(venv, { version: '3.11.9', executable: python }, quiet)
    ).toBe(true)
    expect(fs.readFileSync(path.join(venv, 'pyvenv.cfg'), 'utf8')).toBe(
      `home = ${path.dirname(python)}\nimplementation = CPython\nuv = 0.13.9\nversion_info = 3.11.9\nrelocatable = true\n`
    )
    expect(fs.readlinkSync(path.join(venv, 'bin', 'python'))).toBe(python)
    expect(fs.readlinkSync(path.join(venv, 'bin', 'python3'))).toBe('python')
    expect(
      relinkInterpreter(venv, { version: '3.11.9', executable: python }, quiet)
    ).toBe(false)
  })
})

describe("the post step's save", () => {
  const layoutIn = (root: string) =>
    venvLayout(root, '0.1.97', false, {
      version: '3.11.7',
      minor: '3.11',
      os: 'linux',
      arch: 'x86_64',
      executable: '/usr/bin/python3.11'
    })

  function installed() {
    const layout = layoutIn(path.join(temp, 'tc'))
    touch(path.join(layout.dir, 'bin', 'massgen'), '#!/bin/sh\n')
    touch(path.join(layout.dir, 'bin', 'python'))
    touch(
      path.join(
        layout.dir,
        'lib',
        'python3.11',
        'site-packages',
        'massgen',
        '__init__.py'
      ),
      'VERSION = "0.1.97"\n'
    )
    fs.writeFileSync(
      path.join(layout.dir, MARKER_FILE),
      markerText('0.1.97', 'base', 'uv')
    )
    const runCopy = makeRunCopy(layout)
    return {
      layout,
      runCopy,
      state: JSON.stringify(pendingSaveFor(layout, runCopy))
    }
  }
  const site = (dir: string, ...rest: string[]) =>
    path.join(dir, 'lib', 'python3.11', 'site-packages', ...rest)

  /** Both entries, the core's patterns and the extras' paths. */
  const savedEntries = (layout: VenvLayout) =>
    [layout.entries.core, layout.entries.extras!].map(
      (e) => `${e.key} ${e.paths.join(',')}`
    )

  function recordingCache() {
    const saved: string[] = []
    const cache: CacheStore = {
      async restore() {
        return undefined
      },
      async save(paths, key) {
        saved.push(`${key} ${paths.join(',')}`)
      }
    }
    return { cache, saved }
  }

  const lines: string[] = []
  const log = {
    info: (m: string) => lines.push(m),
    warning: (m: string) => lines.push(`warning ${m}`),
    debug() {}
  }

  it('saves the install as it was before MassGen started', async () => {
    const { layout, state } = installed()
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('saved')
    expect(saved).toEqual(savedEntries(layout))
  })

  it('saves the install without what MassGen wrote at its start into the copy it ran from, then removes the copy', async () => {
    const { layout, runCopy, state } = installed()
    // What MassGen 0.1.97 does at its first start in Docker mode: beartype
    // caches the modules it rewrote as new bytecode files.
    touch(
      site(
        runCopy,
        'massgen',
        '__pycache__',
        '__init__.cpython-311.opt-beartype0v23v1.pyc'
      ),
      'bytecode'
    )
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('saved')
    expect(saved).toEqual(savedEntries(layout))
    expect(fs.existsSync(site(layout.dir, 'massgen', '__pycache__'))).toBe(
      false
    )
    expect(fs.existsSync(runCopy)).toBe(false)
    expect(fs.existsSync(path.join(layout.dir, 'bin', 'massgen'))).toBe(true)
  })

  it('attack: an agent that wrote into a file of the copy MassGen ran from (the install shares it) is not saved', async () => {
    const { runCopy, state } = installed()
    const shared = site(runCopy, 'massgen', '__init__.py')
    // In place, through the link: the inode the install holds too.
    const fd = fs.openSync(shared, 'r+')
    fs.writeSync(fd, 'import os;')
    fs.closeSync(fd)
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('refused')
    expect(saved).toEqual([])
    expect(fs.existsSync(runCopy)).toBe(false)
  })

  it('attack: an agent that added a file to the install itself, beside the copy, is not saved', async () => {
    const { layout, state } = installed()
    touch(
      site(layout.dir, 'massgen', '__pycache__', '__init__.cpython-311.pyc'),
      'evil bytecode'
    )
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('refused')
    expect(saved).toEqual([])
  })

  it('the copy removed after the save is only ever a copy beside the install', () => {
    const { layout, runCopy } = installed()
    const other = path.join(temp, 'keep')
    fs.mkdirSync(other)
    removeRunCopy(other, layout.dir)
    removeRunCopy(layout.dir, layout.dir)
    removeRunCopy(path.join(runCopy, '..', '..', 'keep'), layout.dir)
    expect(fs.existsSync(other)).toBe(true)
    expect(fs.existsSync(layout.dir)).toBe(true)
    removeRunCopy(runCopy, layout.dir)
    expect(fs.existsSync(runCopy)).toBe(false)
  })

  it("a pip install's scripts, which name the install's folder, name the copy's in the copy", () => {
    const { layout } = installed()
    const pipScript = path.join(layout.dir, 'bin', 'fastmcp')
    touch(pipScript, `#!${layout.dir}/bin/python\nimport sys\n`)
    const runCopy = makeRunCopy(layout)
    expect(fs.readFileSync(path.join(runCopy, 'bin', 'fastmcp'), 'utf8')).toBe(
      `#!${runCopy}/bin/python\nimport sys\n`
    )
    expect(fs.readFileSync(pipScript, 'utf8')).toBe(
      `#!${layout.dir}/bin/python\nimport sys\n`
    )
    // Everything else is the install's own file, linked.
    expect(fs.statSync(site(runCopy, 'massgen', '__init__.py')).ino).toBe(
      fs.statSync(site(layout.dir, 'massgen', '__init__.py')).ino
    )
    expect(
      (fs.statSync(path.join(runCopy, 'bin', 'fastmcp')).mode & 0o777).toString(
        8
      )
    ).toBe('755')
  })

  it('attack: an agent that rewrote a file of the install, size and mtime kept, is not saved', async () => {
    const { layout, state } = installed()
    const file = path.join(
      layout.dir,
      'lib',
      'python3.11',
      'site-packages',
      'massgen',
      '__init__.py'
    )
    const before = fs.statSync(file)
    // Same length, old mtime back: only the change time tells.
    fs.writeFileSync(
      file,
      'import os;os.system("curl evil")'
        .slice(0, before.size)
        .padEnd(before.size)
    )
    fs.utimesSync(file, before.atime, before.mtime)
    expect(fs.statSync(file).size).toBe(before.size)
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('refused')
    expect(saved).toEqual([])
    expect(lines.at(-1)).toMatch(
      /^warning MassGen: not saved .* changed after it was installed/
    )
  })

  it('attack: an agent that added a .pth file (run at every Python start) is not saved', async () => {
    const { layout, state } = installed()
    touch(
      path.join(layout.dir, 'lib', 'python3.11', 'site-packages', 'zz.pth'),
      'import os\n'
    )
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('refused')
    expect(saved).toEqual([])
  })

  it('attack: an agent that swapped the massgen script for a link is not saved', async () => {
    const { layout, state } = installed()
    const script = path.join(layout.dir, 'bin', 'massgen')
    fs.rmSync(script)
    fs.symlinkSync('/tmp/evil', script)
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('refused')
    expect(saved).toEqual([])
  })

  it('an install whose marker is gone is not saved', async () => {
    const { layout, state } = installed()
    fs.rmSync(path.join(layout.dir, MARKER_FILE))
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall(state, cache, log)).toBe('refused')
    expect(saved).toEqual([])
  })

  it('nothing to save without a state, or with one that is not ours', async () => {
    const { cache, saved } = recordingCache()
    expect(await saveDeferredInstall('', cache, log)).toBe('none')
    expect(await saveDeferredInstall('{"dir":1}', cache, log)).toBe('none')
    expect(await saveDeferredInstall('not json', cache, log)).toBe('none')
    expect(saved).toEqual([])
  })

  it('the fingerprint is stable while nothing changes, and links are not followed', () => {
    const { layout } = installed()
    fs.symlinkSync('/', path.join(layout.dir, 'root-link'))
    const a = fingerprintTree(layout.dir)
    expect(fingerprintTree(layout.dir)).toEqual(a)
    expect(a.entries).toBeLessThan(20)
  })
})

describe('where the time went, in the summary', () => {
  it('shows each setup phase, the critical path and its ratio, start-up, rounds and report', () => {
    const text = timingsSection({
      setup: {
        phases: [
          { name: 'pull request and config', start: 0, end: 0.4 },
          { name: 'Docker image', start: 0, end: 30 },
          { name: 'MassGen', start: 0, end: 40 }
        ],
        criticalPath: 40.2
      },
      massgenStart: 7.5,
      rounds: 12.25,
      report: 1.5
    })
    expect(text).toContain(
      '| setup: Docker image | 30.0 s | from 0.0 s to 30.0 s |'
    )
    expect(text).toContain(
      '| **setup, critical path** | **40.2 s** | x1.01 its longest phase (MassGen); the phases run at once |'
    )
    expect(text).toContain('| MassGen start | 7.5 s |')
    expect(text).toContain('| MassGen rounds | 12.3 s |')
    expect(text).toContain('| report | 1.5 s |')
    expect(timingsSection(undefined)).toBe('')
  })
})
