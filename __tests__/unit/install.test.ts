import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  prepareMassgen,
  type PrepareOptions
} from '../../src/prepare/massgen.js'
import {
  MARKER_FILE,
  markerText,
  venvLayout
} from '../../src/prepare/install/layout.js'
import { MassgenInstallError, tail } from '../../src/prepare/install/output.js'
import { UV_VERSION } from '../../src/prepare/install/uv.js'
import { lockText } from '../../src/prepare/install/lock.js'
import { EXTRAS_MARKER_FILE } from '../../src/prepare/install/split.js'
import { type CacheStore } from '../../src/prepare/install/cache.js'
import type { ExecResult } from '../../src/core/process.js'
import {
  fakeProcesses,
  type ExecCall
} from '../../test-support/fake-process.js'

type Handler = (call: ExecCall) => Partial<ExecResult> | undefined

const PROBE_OUT = '3.11.7\nlinux\nx86_64\n/usr/bin/python3.11\n'
const CACHE_ENV = {
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-value',
  ACTIONS_RESULTS_URL: 'http://127.0.0.1:1/'
}

function touch(file: string, text = '') {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text, { mode: 0o755 })
}

/** Acts like python3, pip and uv by creating the files they would. */
function fakeRunner(override?: Handler) {
  const fake = fakeProcesses({
    only: 'exec',
    exec(call) {
      const { command, args } = call
      const custom = override?.(call)
      if (custom) return custom
      if (args[0] === '-c') return { stdout: PROBE_OUT }
      const target = args.indexOf('--target')
      if (target !== -1) {
        touch(path.join(args[target + 1]!, 'bin', 'uv'))
        return {}
      }
      if (args[0] === 'venv') {
        touch(path.join(args[args.length - 1]!, 'bin', 'python'))
        return {}
      }
      if (args[0] === '-m' && args[1] === 'venv') {
        touch(path.join(args[2]!, 'bin', 'python'))
        return {}
      }
      if (args.includes('install')) {
        const python =
          args[0] === 'pip' ? args[args.indexOf('--python') + 1]! : command
        const bin = path.dirname(python)
        touch(path.join(bin, 'massgen'), `#!${bin}/python\nimport massgen\n`)
        return {}
      }
      return { exitCode: 99, stderr: `unexpected ${command} ${args.join(' ')}` }
    }
  })
  return { runner: fake.runner, calls: fake.execs }
}

function fakeCache(onRestore?: () => string | undefined) {
  const restored: string[] = []
  const saved: { paths: string[]; key: string }[] = []
  const cache: CacheStore = {
    async restore(_paths, key) {
      restored.push(key)
      return onRestore?.()
    },
    async save(paths, key) {
      saved.push({ paths, key })
    }
  }
  return { cache, restored, saved }
}

function logger() {
  const lines: string[] = []
  return {
    lines,
    log: {
      info: (m: string) => lines.push(`info ${m}`),
      warning: (m: string) => lines.push(`warning ${m}`),
      debug: (m: string) => lines.push(`debug ${m}`)
    }
  }
}

let toolCache: string
beforeEach(() => {
  toolCache = fs.mkdtempSync(path.join(os.tmpdir(), 'install-test-'))
})
afterEach(() => {
  fs.rmSync(toolCache, { recursive: true, force: true })
})

const venvDir = (extras = 'base') =>
  path.join(toolCache, 'massgen', `0.1.97-${extras}-py3.11-linux-x86_64`)

function makeComplete(dir: string, version = '0.1.97', extras = 'base') {
  touch(path.join(dir, 'bin', 'massgen'))
  touch(path.join(dir, 'bin', 'python'))
  fs.writeFileSync(
    path.join(dir, MARKER_FILE),
    markerText(version, extras, 'uv')
  )
}

function options(extra: Partial<PrepareOptions> = {}): PrepareOptions & {
  lines: string[]
} {
  const { log, lines } = logger()
  return {
    version: '0.1.97',
    command: undefined,
    docker: false,
    useCache: true,
    needsExtras: false,
    saveCache: true,
    toolCacheDir: toolCache,
    env: { PATH: '/usr/bin:/bin', ...CACHE_ENV },
    log,
    lines,
    ...extra
  }
}

describe('massgen-command', () => {
  it('uses the command as given when it is on PATH', async () => {
    const bin = path.join(toolCache, 'bin')
    touch(path.join(bin, 'my-massgen'))
    const { runner, calls } = fakeRunner()
    const result = await prepareMassgen(
      runner,
      options({
        command: ['my-massgen', '--flag'],
        env: { PATH: `/nowhere:${bin}` }
      })
    )
    expect(result).toMatchObject({
      command: 'my-massgen',
      prefixArgs: ['--flag'],
      source: 'command',
      version: undefined
    })
    expect(calls).toHaveLength(0)
  })

  it('names the input when the executable is not found', async () => {
    const { runner } = fakeRunner()
    const run = prepareMassgen(
      runner,
      options({ command: ['uvx', 'massgen'], env: { PATH: toolCache } })
    )
    await expect(run).rejects.toThrow(MassgenInstallError)
    await expect(run).rejects.toThrow(/massgen-command: "uvx" was not found/)
  })
})

describe('local virtualenv', () => {
  it('reuses a complete install without cache or installer', async () => {
    makeComplete(venvDir())
    const { runner, calls } = fakeRunner()
    const { cache, restored } = fakeCache()
    const opts = options({ cache })
    const result = await prepareMassgen(runner, opts)
    expect(result).toMatchObject({
      command: path.join(venvDir(), 'bin', 'massgen'),
      prefixArgs: [],
      source: 'local',
      version: '0.1.97'
    })
    expect(calls.map((c) => c.args[0])).toEqual(['-c'])
    expect(restored).toEqual([])
    expect(
      opts.lines.some((l) => /^info MassGen: reused .* \(\d+\.\d s\)$/.test(l))
    ).toBe(true)
  })

  it('does not reuse an install of another version', async () => {
    makeComplete(venvDir(), '0.1.96')
    const { runner } = fakeRunner()
    const result = await prepareMassgen(
      runner,
      options({ cache: fakeCache().cache })
    )
    expect(result.source).toBe('installed')
    expect(
      fs.readFileSync(path.join(venvDir(), MARKER_FILE), 'utf8')
    ).toContain('massgen=0.1.97')
  })

  it('repairs a half-finished install (no marker)', async () => {
    touch(path.join(venvDir(), 'bin', 'massgen'))
    touch(path.join(venvDir(), 'leftover'))
    const { runner } = fakeRunner()
    const opts = options({ cache: fakeCache().cache })
    const result = await prepareMassgen(runner, opts)
    expect(result.source).toBe('installed')
    expect(fs.existsSync(path.join(venvDir(), 'leftover'))).toBe(false)
    expect(fs.existsSync(path.join(venvDir(), MARKER_FILE))).toBe(true)
    expect(
      opts.lines.some(
        (l) => l.startsWith('warning') && l.includes('unfinished')
      )
    ).toBe(true)
  })
})

describe('actions cache', () => {
  it('restores a complete install', async () => {
    const { runner, calls } = fakeRunner()
    const { cache, restored, saved } = fakeCache(() => {
      makeComplete(venvDir())
      return 'the-key'
    })
    const result = await prepareMassgen(runner, options({ cache }))
    expect(result.source).toBe('cache')
    expect(restored).toHaveLength(1)
    expect(saved).toEqual([])
    expect(calls).toHaveLength(1)
  })

  it('installs again when the restored entry is incomplete', async () => {
    const { runner } = fakeRunner()
    const { cache } = fakeCache(() => {
      touch(path.join(venvDir(), 'bin', 'python'))
      return 'the-key'
    })
    const result = await prepareMassgen(runner, options({ cache }))
    expect(result.source).toBe('installed')
  })

  it('is skipped, and says so, without the cache service variables', async () => {
    const { runner } = fakeRunner()
    const { cache, restored, saved } = fakeCache()
    const opts = options({ cache, env: { PATH: '/usr/bin' } })
    const result = await prepareMassgen(runner, opts)
    expect(result.source).toBe('installed')
    expect(restored).toEqual([])
    expect(saved).toEqual([])
    expect(opts.lines.some((l) => l.includes('cache is unavailable'))).toBe(
      true
    )
  })

  it('is not touched when cache-massgen is off', async () => {
    const { runner } = fakeRunner()
    const { cache, restored, saved } = fakeCache()
    const opts = options({ cache, useCache: false })
    await prepareMassgen(runner, opts)
    expect(restored).toEqual([])
    expect(saved).toEqual([])
    expect(opts.lines.some((l) => l.includes('unavailable'))).toBe(false)
  })

  it('keys on MassGen version, extras, Python minor (locked), OS, arch and image', () => {
    const python = {
      version: '3.12.4',
      minor: '3.12',
      os: 'linux',
      arch: 'aarch64',
      executable: '/usr/bin/python3'
    }
    const layout = venvLayout('/opt/tc', '0.1.97', true, python, {
      ImageOS: 'ubuntu24'
    })
    expect(layout.lock).toContain('\nmcp==1.30.0\n')
    expect(layout.dir).toBe(
      '/opt/tc/massgen/0.1.97-docker-py3.12-linux-aarch64'
    )
    expect(layout.requirement).toBe('massgen[docker]==0.1.97')
    expect(layout.cacheKey).toMatch(
      /^massgen-action-v1-massgen-0\.1\.97-docker-py3\.12-linux-aarch64-ubuntu24-lock[0-9a-f]{8}-pruned1$/
    )
    // No lock for 0.1.98: any patch release may resolve differently.
    const base = venvLayout('/opt/tc', '0.1.98', false, python)
    expect(base.cacheKey).toBe(
      'massgen-action-v1-massgen-0.1.98-base-py3.12.4-linux-aarch64'
    )
    expect(base.requirement).toBe('massgen==0.1.98')
  })
})

describe('fresh install', () => {
  it('bootstraps uv, installs into a temp folder, renames, marks, and leaves the save to the post step', async () => {
    const { runner, calls } = fakeRunner()
    const { cache, saved } = fakeCache()
    const opts = options({ docker: true, cache })
    const result = await prepareMassgen(runner, opts)
    const dir = venvDir('docker')
    // It runs from a linked copy, so the install stays as installed for the save.
    const runCopy = result.pendingSave?.runCopy ?? ''
    expect(path.basename(runCopy)).toMatch(
      new RegExp(`^\\.run-${path.basename(dir)}-`)
    )
    expect(result).toMatchObject({
      command: path.join(runCopy, 'bin', 'massgen'),
      source: 'installed',
      version: '0.1.97'
    })
    const marker = fs.readFileSync(path.join(dir, MARKER_FILE), 'utf8')
    expect(marker).toContain('massgen=0.1.97\nextras=docker\n')
    expect(marker).toContain('complete=true')
    // Nothing temporary left behind but the copy the post step removes.
    const root = path.join(toolCache, 'massgen')
    expect(fs.readdirSync(root).sort()).toEqual([
      path.basename(runCopy),
      path.basename(dir),
      `uv-${UV_VERSION}`
    ])
    // Never saved before MassGen starts: fingerprinted for the post step.
    expect(saved).toEqual([])
    expect(result.pendingSave?.dir).toBe(dir)
    expect(result.pendingSave?.fingerprint.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(result.pendingSave?.entries.map((e) => e.key)).toEqual([
      expect.stringMatching(
        /^massgen-action-v1-massgen-0\.1\.97-docker-py3\.11\.3\+-linux-x86_64-lock[0-9a-f]{8}-pruned1-without-claude-cli-video-audio-documents-memory-frameworks$/
      ),
      expect.stringMatching(
        /-pruned1-claude-cli-video-audio-documents-memory-frameworks-only$/
      )
    ])
    // The extras' marker is part of the install, saved with the extras.
    expect(fs.readFileSync(path.join(dir, EXTRAS_MARKER_FILE), 'utf8')).toBe(
      'extras=claude-cli-video-audio-documents-memory-frameworks\ncomplete=true\n'
    )
    const uv = path.join(root, `uv-${UV_VERSION}`, 'bin', 'uv')
    const install = calls.find((c) => c.command === uv && c.args[0] === 'pip')
    expect(install?.args).toContain('massgen[docker]==0.1.97')
    // Then what MassGen never uses in the action's runs goes (prepare/install/prune.ts).
    const uninstall = calls.find(
      (c) => c.command === uv && c.args[1] === 'uninstall'
    )
    expect(uninstall?.args).toEqual(
      expect.arrayContaining(['github-copilot-sdk', 'sphinx', 'pyarrow'])
    )
    // In the temporary folder, before the marker and the rename.
    expect(uninstall?.args[uninstall.args.indexOf('--python') + 1]).toMatch(
      /\/massgen\/\.tmp-[^/]+\/bin\/python$/
    )
    expect(install?.args).toContain('--compile-bytecode')
    // Held to the checked versions; the constraints file is gone afterwards.
    const constraint = install?.args[install.args.indexOf('--constraint') + 1]
    expect(constraint).toMatch(/\.constraints\.txt$/)
    expect(fs.existsSync(constraint!)).toBe(false)
    expect(install?.env?.UV_PYTHON_DOWNLOADS).toBe('never')
    expect(install?.env?.PIP_NO_INPUT).toBe('1')
    expect(install?.cwd).toBe(root)
    expect(calls.find((c) => c.args[0] === 'venv')?.args).toContain(
      '--relocatable'
    )
    expect(
      opts.lines.some((l) =>
        /^info MassGen: installed .* with uv .*\(\d+\.\d s\)$/.test(l)
      )
    ).toBe(true)
  })

  it('falls back to pip when uv cannot be had, fixing script paths', async () => {
    const { runner, calls } = fakeRunner((call) =>
      call.args.includes('--target')
        ? {
            exitCode: 1,
            stderr: 'ERROR: No matching distribution found for uv'
          }
        : undefined
    )
    const opts = options({ cache: fakeCache().cache })
    const result = await prepareMassgen(runner, opts)
    expect(result.source).toBe('installed')
    expect(
      calls.some((c) =>
        /^-m pip install --no-input --quiet --constraint \S+ massgen==0\.1\.97$/.test(
          c.args.join(' ')
        )
      )
    ).toBe(true)
    const script = fs.readFileSync(
      path.join(venvDir(), 'bin', 'massgen'),
      'utf8'
    )
    expect(script.split('\n')[0]).toBe(`#!${venvDir()}/bin/python`)
    expect(
      fs.readFileSync(path.join(venvDir(), MARKER_FILE), 'utf8')
    ).toContain('installer=pip')
    expect(
      opts.lines.some(
        (l) => l.startsWith('warning') && l.includes('No matching')
      )
    ).toBe(true)
  })

  it('fails with the installer output, no secrets, and what to do', async () => {
    const { runner } = fakeRunner((call) =>
      call.args[0] === 'pip'
        ? {
            exitCode: 1,
            stdout: 'Resolved nothing',
            stderr:
              'line a\n\x1b[31merror\x1b[0m: Because massgen==9.9.9 was not found in ' +
              'https://user:s3cretpass@mirror.example/simple and sk-test-secret-value leaked'
          }
        : undefined
    )
    const opts = options({
      version: '9.9.9',
      cache: fakeCache().cache,
      env: { PATH: '/usr/bin', OPENAI_API_KEY: 'sk-test-secret-value' }
    })
    const error = await prepareMassgen(runner, opts).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(MassgenInstallError)
    const message = (error as Error).message
    expect(message).toContain(
      'Installing massgen==9.9.9 with uv failed (exit 1)'
    )
    expect(message).toContain('error: Because massgen==9.9.9 was not found')
    expect(message).toContain('massgen-version')
    expect(message).toContain('massgen-command')
    expect(message).not.toContain('s3cretpass')
    expect(message).not.toContain('sk-test-secret-value')
    expect(message).not.toContain('\x1b')
    // No half install left in place, nor a temp folder.
    const root = path.join(toolCache, 'massgen')
    expect(fs.readdirSync(root)).toEqual([`uv-${UV_VERSION}`])
  })

  it('refuses an old Python with advice', async () => {
    const { runner } = fakeRunner((call) =>
      call.args[0] === '-c'
        ? { stdout: '3.10.12\nlinux\nx86_64\n/usr/bin/python3\n' }
        : undefined
    )
    await expect(prepareMassgen(runner, options())).rejects.toThrow(
      /python3 is 3\.10\.12.*actions\/setup-python/
    )
  })

  it('refuses a version that is not a release number', async () => {
    const { runner } = fakeRunner()
    await expect(
      prepareMassgen(runner, options({ version: '../x' }))
    ).rejects.toThrow(/massgen-version/)
  })
})

describe('lock', () => {
  it('holds only checked releases on checked Pythons', () => {
    expect(lockText('0.1.97', '3.11')).toContain('\nmcp==1.30.0\n')
    expect(lockText('0.1.97', '3.14')).toBeUndefined()
    expect(lockText('0.1.90', '3.11')).toBeUndefined()
  })

  it('is a constraints file: one pinned name==version a line, each name once', () => {
    const lines = (lockText('0.1.97', '3.11') ?? '').trimEnd().split('\n')
    expect(lines.length).toBeGreaterThan(200)
    for (const line of lines) expect(line).toMatch(/^[a-z0-9._-]+==[^\s=]+$/)
    const names = lines.map((line) => line.split('==')[0])
    expect(new Set(names).size).toBe(names.length)
  })

  it('resolves freely, and says so, for a release without a lock', async () => {
    const { runner, calls } = fakeRunner()
    const opts = options({ version: '0.1.90', cache: fakeCache().cache })
    await prepareMassgen(runner, opts)
    const install = calls.find((c) => c.args[0] === 'pip')
    expect(install?.args).not.toContain('--constraint')
    expect(install?.args).toContain('massgen==0.1.90')
    expect(opts.lines.some((l) => l.includes('no checked dependency'))).toBe(
      true
    )
  })
})

describe('tail', () => {
  it('keeps the last lines only', () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n')
    const out = tail(text, {})
    expect(out.split('\n')).toHaveLength(15)
    expect(out).toContain('line 39')
    expect(out).not.toContain('line 24\n')
  })
})
