// The release path of docs/releasing.md, played on local git repositories:
// scripts/release/move-major-tag.sh against a bare repository standing in for
// GitHub, as .github/workflows/release.yml runs it on a published release.
import { beforeEach, describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const SCRIPT = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'scripts',
  'release',
  'move-major-tag.sh'
)

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'release test',
  GIT_AUTHOR_EMAIL: 'release@example.invalid',
  GIT_COMMITTER_NAME: 'release test',
  GIT_COMMITTER_EMAIL: 'release@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: os.tmpdir()
}

let work: string
let remote: string

function git(...args: string[]): string {
  const run = spawnSync('git', args, {
    cwd: work,
    env: GIT_ENV,
    encoding: 'utf8'
  })
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`)
  return run.stdout.trim()
}

/** A commit whose package.json says `version` and whose changelog names `entries`. */
function release(version: string, entries: string[] = [version]): string {
  fs.writeFileSync(
    path.join(work, 'package.json'),
    JSON.stringify({ name: 'massgen-action', version })
  )
  fs.writeFileSync(
    path.join(work, 'CHANGELOG.md'),
    `# Changelog\n\n${entries.map((v) => `## ${v} - 2026-12-02\n\n- changes\n`).join('\n')}`
  )
  git('add', '.')
  git('commit', '-q', '-m', `release ${version}`)
  return git('rev-parse', 'HEAD')
}

function tagAndMove(tag: string, annotated = false) {
  if (annotated) git('tag', '-a', '-m', tag, tag)
  else git('tag', tag)
  git('push', '-q', 'origin', `refs/tags/${tag}`)
  return spawnSync('bash', [SCRIPT, tag], {
    cwd: work,
    env: GIT_ENV,
    encoding: 'utf8'
  })
}

function remoteTag(name: string): string | undefined {
  const run = spawnSync(
    'git',
    ['rev-parse', '--verify', '--quiet', `refs/tags/${name}^{commit}`],
    { cwd: remote, env: GIT_ENV, encoding: 'utf8' }
  )
  return run.status === 0 ? run.stdout.trim() : undefined
}

function remoteTags(): string[] {
  const run = spawnSync('git', ['tag', '--list'], {
    cwd: remote,
    env: GIT_ENV,
    encoding: 'utf8'
  })
  return run.stdout.split('\n').filter(Boolean)
}

beforeEach(() => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'release-tags-'))
  remote = path.join(root, 'remote.git')
  work = path.join(root, 'work')
  spawnSync('git', ['init', '-q', '--bare', remote], { env: GIT_ENV })
  spawnSync('git', ['init', '-q', '-b', 'main', work], { env: GIT_ENV })
  git('remote', 'add', 'origin', remote)
})

describe('moving the major tag on a release', () => {
  it('the first v1 release creates v1 on the remote, at the release commit', () => {
    const commit = release('1.0.0')
    const run = tagAndMove('v1.0.0')
    expect(run.status).toBe(0)
    expect(remoteTag('v1')).toBe(commit)
  })

  it('a newer minor moves v1 forward, from an annotated tag too', () => {
    release('1.0.0')
    tagAndMove('v1.0.0')
    const newer = release('1.1.0', ['1.1.0', '1.0.0'])
    expect(tagAndMove('v1.1.0', true).status).toBe(0)
    expect(remoteTag('v1')).toBe(newer)
  })

  it('a fix to an older minor leaves v1 on the newest release', () => {
    release('1.0.0')
    tagAndMove('v1.0.0')
    const newest = release('1.1.0', ['1.1.0', '1.0.0'])
    tagAndMove('v1.1.0')
    git('checkout', '-q', '-b', 'fix', 'v1.0.0')
    release('1.0.1', ['1.0.1', '1.0.0'])
    const run = tagAndMove('v1.0.1')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('v1.1.0 is newer than v1.0.1')
    expect(remoteTag('v1')).toBe(newest)
  })

  it('v1.10.0 is newer than v1.9.0 (versions sort as numbers)', () => {
    release('1.9.0')
    tagAndMove('v1.9.0')
    const ten = release('1.10.0', ['1.10.0', '1.9.0'])
    tagAndMove('v1.10.0')
    expect(remoteTag('v1')).toBe(ten)
  })

  it('a new major creates its own tag and leaves the old one', () => {
    const one = release('1.0.0')
    tagAndMove('v1.0.0')
    const two = release('2.0.0', ['2.0.0', '1.0.0'])
    tagAndMove('v2.0.0')
    expect(remoteTag('v1')).toBe(one)
    expect(remoteTag('v2')).toBe(two)
  })

  it('a pre-release moves nothing', () => {
    const one = release('1.0.0')
    tagAndMove('v1.0.0')
    release('1.1.0-rc.1', ['1.1.0-rc.1', '1.0.0'])
    const run = tagAndMove('v1.1.0-rc.1')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('pre-release')
    expect(remoteTag('v1')).toBe(one)
  })

  it.each([
    ['1.0.0', 'not a version tag'],
    ['v1', 'not a version tag'],
    ['v1.0', 'not a version tag'],
    ['release-1.0.0', 'not a version tag']
  ])('refuses the tag name %s', (tag, message) => {
    release('1.0.0')
    const run = tagAndMove(tag)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(message)
    expect(remoteTags()).toEqual([tag])
  })

  it('refuses a tag whose package.json names another version', () => {
    release('1.0.0', ['1.1.0', '1.0.0'])
    const run = tagAndMove('v1.1.0')
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(
      'package.json at v1.1.0 says version 1.0.0, the tag says 1.1.0'
    )
    expect(remoteTag('v1')).toBeUndefined()
  })

  it('refuses a tag whose changelog has no entry for it', () => {
    release('1.1.0', ['1.0.0'])
    const run = tagAndMove('v1.1.0')
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(
      "CHANGELOG.md at v1.1.0 has no '## 1.1.0' entry"
    )
  })

  it('a changelog entry for 1.1.0 does not count for 1.1.0 with other digits (1.10.0, 1x1x0)', () => {
    release('1.1.0', ['1.10.0', '1x1x0'])
    expect(tagAndMove('v1.1.0').status).toBe(1)
  })

  it('refuses a tag that is not in the repository', () => {
    const run = spawnSync('bash', [SCRIPT, 'v9.9.9'], {
      cwd: work,
      env: GIT_ENV,
      encoding: 'utf8'
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('no tag v9.9.9')
  })
})
