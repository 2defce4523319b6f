// The Actions cache save of a fresh MassGen install, end to end: the bundled
// action installs (a stand-in uv, so no PyPI), MassGen starts and writes
// into its own virtualenv as MassGen 0.1.97 does at its first start (new
// bytecode files, docs/setup-speed.md), and the post step saves through the
// real @actions/cache to the loopback cache service (test-support/
// cache-server.ts). What is saved must be the install as it was before
// MassGen ran; an agent's write into it must leave nothing saved; a pull
// request restores the entry and saves none of its own.
//
// MassGen runs unsandboxed here (local-sandbox 'false'), as in Docker mode,
// where it runs on the runner: local mode's sandbox binds the install
// read-only and MassGen could write nothing into it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  startCacheServer,
  type CacheServer
} from '../../test-support/cache-server.js'
import {
  FAKE_MASSGEN,
  NODE24,
  runAction,
  type ActionRun
} from '../../test-support/run-action.js'
import { KEYS } from '../../test-support/fixtures.js'
import { UV_VERSION } from '../../src/prepare/install/uv.js'

const SITE = 'lib/python3.11/site-packages/massgen'
/** The name beartype's import hook gives the bytecode it caches. */
const BEARTYPE_PYC = `${SITE}/__pycache__/__init__.cpython-311.opt-beartype0v23v1.pyc`

/**
 * The massgen script the stand-in uv installs: at its start it writes a
 * new bytecode file into its own virtualenv (what MassGen 0.1.97 does),
 * and, played as an attack, appends to a file of it in place; then it is
 * the fake MassGen.
 */
const MASSGEN_SCRIPT = `#!/bin/sh
venv=$(dirname "$(dirname "$(realpath "$0")")")
mkdir -p "$venv/${SITE}/__pycache__"
echo bytecode > "$venv/${BEARTYPE_PYC}"
if [ "\${FAKE_MASSGEN_VENV_ATTACK:-}" = in-place ]; then
  printf 'import os\\n' >> "$venv/${SITE}/__init__.py"
fi
exec "${NODE24}" "${FAKE_MASSGEN}" "$@"
`

/** uv as the installer calls it: venv, pip install, pip uninstall. */
const UV_SCRIPT = `#!/bin/sh
set -eu
last=; py=; prev=
for a in "$@"; do
  [ "$prev" = --python ] && py=$a
  prev=$a; last=$a
done
case "$1" in
  venv)
    mkdir -p "$last/bin" "$last/${SITE}"
    ln -s "$py" "$last/bin/python" ;;
  pip)
    [ "$2" = install ] || exit 0
    venv=$(dirname "$(dirname "$py")")
    printf 'VERSION = "0.1.97"\\n' > "$venv/${SITE}/__init__.py"
    cat > "$venv/bin/massgen" <<'SCRIPT'
${MASSGEN_SCRIPT}SCRIPT
    chmod 755 "$venv/bin/massgen" ;;
esac
`

let cache: CacheServer
const toolCaches: string[] = []
beforeAll(async () => {
  cache = await startCacheServer()
})
afterAll(async () => {
  await cache.close()
  for (const dir of toolCaches) fs.rmSync(dir, { recursive: true, force: true })
})

/** A runner's tool cache: one path per runner (the entry's version hashes it). */
function newToolCache(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cache-save-tc-'))
  toolCaches.push(dir)
  return dir
}

/** Emptied but for uv, as on a fresh runner whose image has uv cached. */
function emptyToolCache(toolCache: string): void {
  fs.rmSync(toolCache, { recursive: true, force: true })
  const uv = path.join(toolCache, 'massgen', `uv-${UV_VERSION}`, 'bin', 'uv')
  fs.mkdirSync(path.dirname(uv), { recursive: true })
  fs.writeFileSync(uv, UV_SCRIPT, { mode: 0o755 })
}

function run(
  ref: string,
  toolCache: string,
  attack?: string,
  inputs: Record<string, string> = {}
): Promise<ActionRun> {
  emptyToolCache(toolCache)
  return runAction({
    inputs: {
      ...inputs,
      query: 'Is the parser change safe?',
      models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview',
      'openai-api-key': KEYS.openai,
      'gemini-api-key': KEYS.google,
      'local-sandbox': 'false',
      'max-duration': '30',
      comment: 'false'
    },
    env: {
      RUNNER_TOOL_CACHE: toolCache,
      ACTIONS_CACHE_URL: `${cache.url}/`,
      ACTIONS_RUNTIME_TOKEN: 'cache-runtime-token',
      GITHUB_REF: ref,
      FAKE_MASSGEN_SCENARIO: 'success',
      ...(attack ? { FAKE_MASSGEN_VENV_ATTACK: attack } : {})
    }
  })
}

/** The files of a saved entry, as @actions/cache archived them. */
function archived(file: string): string[] {
  const zstd =
    fs.readFileSync(file).subarray(0, 4).readUInt32LE(0) === 0xfd2fb528
  return execFileSync(
    'tar',
    [...(zstd ? ['--use-compress-program', 'zstd -d'] : ['-z']), '-tf', file],
    // tar's note on the leading '../' of the members is not wanted here.
    { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] }
  )
    .toString()
    .split('\n')
    .filter(Boolean)
}

const committed = () => cache.entries.filter((e) => e.committed)
/** The install's two entries (src/prepare/install/split.ts). */
const CORE =
  /^massgen-action-v1-massgen-0\.1\.97-base-\S+-pruned1-without-claude-cli-video-audio-documents-memory-frameworks$/
const EXTRAS =
  /^massgen-action-v1-massgen-0\.1\.97-base-\S+-pruned1-claude-cli-video-audio-documents-memory-frameworks-only$/
const entry = (key: RegExp) => committed().find((e) => key.test(e.key))!

describe('the post step saves the install as it was before MassGen ran', () => {
  const toolCache = newToolCache()
  let first: ActionRun
  beforeAll(async () => {
    first = await run('refs/heads/main', toolCache)
  }, 300_000)

  it('the default branch installs, runs MassGen from a linked copy and saves the install after the run', () => {
    expect(first.outputs.status).toBe('success')
    expect(first.stdout).toMatch(/MassGen: installed massgen==0\.1\.97 with uv/)
    expect(first.stdout).toMatch(/runs from \S+\.run-0\.1\.97-base-/)
    expect(first.post?.stdout).toMatch(
      /MassGen: saved the install to the Actions cache as massgen-action-v1-\S+ and massgen-action-v1-/
    )
    expect(committed().map((e) => e.key)).toEqual([
      expect.stringMatching(CORE),
      expect.stringMatching(EXTRAS)
    ])
  })

  it('the saved core holds the install, not the bytecode MassGen wrote at its start; the extras entry their marker', () => {
    const files = archived(entry(CORE).file)
    expect(files.some((f) => f.endsWith('/bin/massgen'))).toBe(true)
    expect(files.some((f) => f.endsWith(`/${SITE}/__init__.py`))).toBe(true)
    expect(files.some((f) => f.endsWith('/.massgen-action-install'))).toBe(true)
    expect(files.some((f) => f.includes('opt-beartype'))).toBe(false)
    expect(files.some((f) => f.includes('.run-'))).toBe(false)
    expect(files.some((f) => f.endsWith('/.massgen-action-extras'))).toBe(false)
    // This stand-in install has no bundled CLI nor opencv: the marker alone.
    expect(archived(entry(EXTRAS).file).map((f) => path.basename(f))).toEqual([
      '.massgen-action-extras'
    ])
  })

  it('the copy MassGen ran from is gone after the post step', () => {
    const left = fs.readdirSync(path.join(toolCache, 'massgen'))
    expect(left.filter((name) => name.startsWith('.run-'))).toEqual([])
  })

  it('a pull request restores the core alone, runs MassGen from it and saves none of its own', async () => {
    const pr = await run('refs/pull/7/merge', toolCache)
    expect(pr.outputs.status).toBe('success')
    expect(pr.stdout).toMatch(
      /MassGen: restored from cache key massgen-action-v1-\S+-without-claude-cli-video-audio-documents-memory-frameworks \(/
    )
    expect(pr.post?.stdout ?? '').not.toMatch(/MassGen: saved/)
    expect(committed()).toHaveLength(2)
    expect(cache.requests.filter((r) => r.kind === 'reserve')).toHaveLength(2)
  }, 300_000)

  it('a pull request with a user config (it may reach the extras) restores both entries', async () => {
    const pr = await run('refs/pull/8/merge', toolCache, undefined, {
      config: 'orchestrator:\n  voting_sensitivity: strictest'
    })
    expect(pr.outputs.status).toBe('success')
    expect(pr.stdout).toMatch(
      /MassGen: restored from cache keys massgen-action-v1-\S+-without-claude-cli-video-audio-documents-memory-frameworks and massgen-action-v1-\S+-claude-cli-video-audio-documents-memory-frameworks-only \(/
    )
    const install = fs
      .readdirSync(path.join(toolCache, 'massgen'))
      .find((name) => name.startsWith('0.1.97-base-'))!
    expect(
      fs.existsSync(
        path.join(toolCache, 'massgen', install, '.massgen-action-extras')
      )
    ).toBe(true)
    expect(committed()).toHaveLength(2)
  }, 300_000)
})

describe('attack: what an agent writes into the install is never saved', () => {
  it('a write in place into a file of the copy MassGen runs from (the install shares it) leaves nothing saved', async () => {
    const before = cache.entries.length
    // Another runner's folder: no entry to restore there, so it installs.
    const attacked = await run('refs/heads/main', newToolCache(), 'in-place')
    expect(attacked.stdout).toMatch(/MassGen: installed massgen==0\.1\.97/)
    expect(attacked.outputs.status).toBe('success')
    expect(attacked.post?.stdout).toMatch(
      /MassGen: not saved to the Actions cache: \S+ changed after it was installed/
    )
    expect(cache.entries.length).toBe(before)
  }, 300_000)
})
