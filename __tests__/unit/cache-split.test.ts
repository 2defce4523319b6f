// The install's Actions cache entry in two (src/prepare/install/split.ts):
// which entries a run restores for which config, what each key says, that
// the core's patterns, read as @actions/cache reads them, hold everything
// but the extras, and that a save still cannot hold an agent's change.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import * as glob from '@actions/glob'
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
import {
  EXTRAS_MARKER_FILE,
  corePatterns,
  extrasMarkerText,
  runNeedsExtras
} from '../../src/prepare/install/split.js'
import {
  pendingSaveFor,
  saveDeferredInstall
} from '../../src/prepare/install/deferred-save.js'
import type { CacheStore } from '../../src/prepare/install/cache.js'
import { fakeProcesses } from '../../test-support/fake-process.js'

const PYTHON = {
  version: '3.11.7',
  minor: '3.11',
  os: 'linux',
  arch: 'x86_64',
  executable: '/usr/bin/python3.11'
}
const SITE = 'lib/python3.11/site-packages'
const EXTRAS = [
  'claude_agent_sdk/_bundled',
  'cv2',
  'opencv_python.libs',
  'elevenlabs',
  'reportlab',
  'pptx',
  'docx',
  'openpyxl',
  'PyPDF2',
  'mem0',
  'qdrant_client',
  'agentscope',
  'smolagents',
  'langgraph'
].map((p) => `${SITE}/${p}`)

let toolCache: string
beforeEach(() => {
  toolCache = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-split-test-'))
})
afterEach(() => {
  fs.rmSync(toolCache, { recursive: true, force: true })
})

const layout = () => venvLayout(toolCache, '0.1.97', true, PYTHON)

function touch(file: string, text = '') {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text, { mode: 0o755 })
}

/** What a restore of each entry leaves (the extras with their marker). */
function writeCore(dir: string) {
  touch(path.join(dir, 'bin', 'massgen'))
  touch(path.join(dir, 'bin', 'python'))
  touch(path.join(dir, SITE, 'claude_agent_sdk', '__init__.py'))
  fs.writeFileSync(
    path.join(dir, MARKER_FILE),
    markerText('0.1.97', 'docker', 'uv')
  )
}
function writeExtras(dir: string) {
  for (const extra of EXTRAS) touch(path.join(dir, extra, 'lib.so'))
  fs.writeFileSync(
    path.join(dir, EXTRAS_MARKER_FILE),
    extrasMarkerText('claude-cli-video-audio-documents-memory-frameworks')
  )
}

/**
 * A cache that holds both entries. Each restore waits until every restore
 * asked for has started, so a run that restored them one after the other
 * would never finish its first.
 */
function twoEntryCache(
  expected: number,
  has: { core: boolean; extras: boolean } = { core: true, extras: true }
) {
  const restored: { key: string; paths: string[] }[] = []
  const dir = layout().dir
  let release: () => void = () => {}
  const allStarted = new Promise<void>((resolve) => (release = resolve))
  const cache: CacheStore = {
    async restore(paths, key) {
      restored.push({ key, paths })
      if (restored.length === expected) release()
      await allStarted
      const extras = key.endsWith(
        '-claude-cli-video-audio-documents-memory-frameworks-only'
      )
      if (extras ? !has.extras : !has.core) return undefined
      if (extras) writeExtras(dir)
      else writeCore(dir)
      return key
    },
    async save() {
      throw new Error('a restore saves nothing')
    }
  }
  return { cache, restored }
}

function options(
  cache: CacheStore,
  needsExtras: boolean
): PrepareOptions & { lines: string[] } {
  const lines: string[] = []
  return {
    version: '0.1.97',
    command: undefined,
    docker: true,
    useCache: true,
    needsExtras,
    saveCache: false,
    toolCacheDir: toolCache,
    env: {
      PATH: '/usr/bin:/bin',
      ACTIONS_RUNTIME_TOKEN: 'runtime-token-value',
      ACTIONS_RESULTS_URL: 'http://127.0.0.1:1/'
    },
    log: {
      info: (m: string) => lines.push(`info ${m}`),
      warning: (m: string) => lines.push(`warning ${m}`),
      debug: (m: string) => lines.push(`debug ${m}`)
    },
    cache,
    lines
  }
}

/** python3's probe answers; an install, should one run, fails loudly. */
function probeOnly() {
  const fake = fakeProcesses({
    only: 'exec',
    exec: ({ args }) =>
      args[0] === '-c'
        ? { stdout: '3.11.7\nlinux\nx86_64\n/usr/bin/python3.11\n' }
        : { exitCode: 99, stderr: `no install expected: ${args.join(' ')}` }
  })
  return fake.runner
}

describe('which entries a run restores', () => {
  it('restores the core alone for a run that cannot reach the extras', async () => {
    const { cache, restored } = twoEntryCache(1)
    const result = await prepareMassgen(probeOnly(), options(cache, false))
    expect(result.source).toBe('cache')
    expect(restored.map((r) => r.key)).toEqual([layout().entries.core.key])
    expect(restored[0]!.paths).toEqual(layout().entries.core.paths)
  })

  it('restores core and extras at once for a run that can reach them', async () => {
    const { cache, restored } = twoEntryCache(2)
    const result = await prepareMassgen(probeOnly(), options(cache, true))
    expect(result.source).toBe('cache')
    expect(restored.map((r) => r.key).sort()).toEqual(
      [layout().entries.core.key, layout().entries.extras!.key].sort()
    )
    for (const extra of EXTRAS)
      expect(fs.existsSync(path.join(layout().dir, extra))).toBe(true)
  })

  it('installs afresh when the extras it needs are not in the cache', async () => {
    const { cache } = twoEntryCache(2, { core: true, extras: false })
    const opts = options(cache, true)
    await expect(prepareMassgen(probeOnly(), opts)).rejects.toThrow()
    // The install was tried (the fake refuses it) over nothing left behind.
    expect(fs.existsSync(layout().dir)).toBe(false)
  })

  it('does not reuse a core-only install for a run that needs the extras', async () => {
    writeCore(layout().dir)
    const { cache, restored } = twoEntryCache(2)
    const opts = options(cache, true)
    const result = await prepareMassgen(probeOnly(), opts)
    expect(result.source).toBe('cache')
    expect(restored).toHaveLength(2)
    expect(opts.lines.some((l) => l.includes('without its extras'))).toBe(true)
  })

  it('reuses a core-only install for a run that cannot reach the extras', async () => {
    writeCore(layout().dir)
    const { cache, restored } = twoEntryCache(1)
    const result = await prepareMassgen(probeOnly(), options(cache, false))
    expect(result.source).toBe('local')
    expect(restored).toEqual([])
  })
})

describe('which runs need the extras', () => {
  const openai = { backend: 'openai' as const, model: 'gpt-5.4' }
  it('the claude_code backend (its bundled CLI) and a user config do', () => {
    expect(
      runNeedsExtras({
        models: [openai, { backend: 'claude_code', model: 'sonnet' }],
        userConfig: undefined
      })
    ).toBe(true)
    expect(
      runNeedsExtras({
        models: [],
        userConfig: { config: { agents: [] }, origin: 'inline' }
      })
    ).toBe(true)
  })
  it('other backends and the default models do not', () => {
    expect(runNeedsExtras({ models: [openai], userConfig: undefined })).toBe(
      false
    )
    expect(runNeedsExtras({ models: [], userConfig: undefined })).toBe(false)
  })
})

describe('the keys and what each entry holds', () => {
  it('each key says what it holds, on the key of the whole install', () => {
    const { cacheKey, entries } = layout()
    expect(entries.core.key).toBe(
      `${cacheKey}-without-claude-cli-video-audio-documents-memory-frameworks`
    )
    expect(entries.extras?.key).toBe(
      `${cacheKey}-claude-cli-video-audio-documents-memory-frameworks-only`
    )
    expect(entries.extras?.paths).toEqual(
      [...EXTRAS, EXTRAS_MARKER_FILE].map((p) => path.join(layout().dir, p))
    )
  })

  it('an unlocked release is one entry, its key unchanged', () => {
    const other = venvLayout(toolCache, '0.1.98', true, PYTHON)
    expect(other.entries.extras).toBeUndefined()
    expect(other.entries.core).toEqual({
      key: other.cacheKey,
      paths: [other.dir]
    })
  })

  it('the core patterns, globbed as @actions/cache globs them, hold all but the extras', async () => {
    const dir = layout().dir
    writeCore(dir)
    writeExtras(dir)
    touch(path.join(dir, SITE, 'massgen', '__pycache__', 'x.pyc'))
    touch(path.join(dir, SITE, 'opencv_python-5.0.dist-info', 'RECORD'))
    touch(path.join(dir, 'pyvenv.cfg'))
    fs.symlinkSync('lib', path.join(dir, 'lib64'))
    // @actions/cache: glob.create(patterns, { implicitDescendants: false }),
    // then tar of each path matched, with all below it.
    const globbed = async (patterns: string[]) =>
      (
        await (
          await glob.create(patterns.join('\n'), { implicitDescendants: false })
        ).glob()
      ).map((p) => path.relative(dir, p))
    const core = await globbed(layout().entries.core.paths)
    const extras = await globbed(layout().entries.extras!.paths)
    const below = (roots: string[]) =>
      allFiles(dir).filter((file) =>
        roots.some((r) => file === r || file.startsWith(`${r}/`))
      )
    const inCore = below(core)
    const inExtras = below(extras)
    // Every file in exactly one of the two.
    expect([...inCore, ...inExtras].sort()).toEqual(allFiles(dir).sort())
    expect(inCore.filter((f) => inExtras.includes(f))).toEqual([])
    expect(inExtras.sort()).toEqual(
      [...EXTRAS.map((e) => `${e}/lib.so`), EXTRAS_MARKER_FILE].sort()
    )
    expect(inCore).toContain(`${SITE}/claude_agent_sdk/__init__.py`)
    expect(inCore).toContain(MARKER_FILE)
  })

  it('builds patterns folder by folder, the last match deciding', () => {
    expect(corePatterns('/v', ['a/b/c', 'a/d', 'm'])).toEqual([
      '/v/*',
      '!/v/a',
      '!/v/m',
      '/v/a/*',
      '!/v/a/b',
      '!/v/a/d',
      '/v/a/b/*',
      '!/v/a/b/c'
    ])
  })
})

describe('the save', () => {
  it('saves both entries of an untouched install, and refuses one an agent changed', async () => {
    const install = layout()
    writeCore(install.dir)
    writeExtras(install.dir)
    const runCopy = fs.mkdtempSync(
      path.join(install.root, `.run-${install.name}-`)
    )
    const state = JSON.stringify(pendingSaveFor(install, runCopy))
    const saved: string[] = []
    const cache: CacheStore = {
      restore: async () => undefined,
      save: async (_paths, key) => {
        saved.push(key)
      }
    }
    const log = { info: () => {}, warning: () => {}, debug: () => {} }
    // An agent's write into the extras (the bundled CLI) is the install's too.
    fs.appendFileSync(path.join(install.dir, EXTRAS[0]!, 'lib.so'), 'planted\n')
    expect(await saveDeferredInstall(state, cache, log)).toBe('refused')
    expect(saved).toEqual([])

    fs.mkdirSync(runCopy)
    const fresh = JSON.stringify(pendingSaveFor(install, runCopy))
    expect(await saveDeferredInstall(fresh, cache, log)).toBe('saved')
    expect(saved).toEqual([
      install.entries.core.key,
      install.entries.extras!.key
    ])
  })
})

function allFiles(root: string): string[] {
  const out: string[] = []
  const visit = (relative: string) => {
    const full = path.join(root, relative)
    const stat = fs.lstatSync(full)
    if (stat.isDirectory())
      for (const name of fs.readdirSync(full))
        visit(relative ? path.join(relative, name) : name)
    else out.push(relative)
  }
  visit('')
  return out
}
