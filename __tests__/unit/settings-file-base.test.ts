// Where the repository config file of a pull request is read
// (context/base-setup.ts readSettingsFile), against the in-memory GitHub: the
// base commit when the base branch is the default branch, else the default
// branch's head, with one line saying so; GitHub failing to say where fails
// closed; the protections of the base commit's file hold there too.
import { describe, expect, it } from '@jest/globals'
import { readSettingsFile } from '../../src/context/base-setup.js'
import type { SetupSource } from '../../src/event/setup-source.js'
import { InputError } from '../../src/inputs/settings.js'
import { fakeGitHub } from '../../test-support/fake-github.js'
import { defaultState } from '../../test-support/github-state.js'
import type { ServerTreeEntry } from '../../test-support/github-state.js'
import { samplePull } from '../../test-support/sample-pull.js'

const FILE = '.github/massgen-action.yml'
const BASE = 'a'.repeat(40)
const HEAD = 'd'.repeat(40)
const SOURCE: SetupSource = {
  from: 'pull-base',
  pullNumber: 42,
  why: 'a pull_request event (pull request #42)'
}

function world(
  baseRef: string,
  files: Record<string, Record<string, ServerTreeEntry>>
) {
  const state = defaultState()
  state.issues = [42]
  const pull = samplePull()
  pull.base = { ...pull.base, ref: baseRef, sha: BASE }
  state.pulls['42'] = pull
  state.branches = { main: HEAD }
  state.files = files
  return fakeGitHub(state)
}

async function read(
  gh: ReturnType<typeof world>,
  event: { base?: { sha: string; ref: string }; defaultBranch?: string }
) {
  const notes: string[] = []
  const file = await readSettingsFile(SOURCE, {
    workspace: '/nonexistent',
    github: () => gh.api,
    ...event,
    note: (m) => notes.push(m)
  })
  return { file, notes }
}

const blocker = { [FILE]: 'fail-on: blocker\n' }
const never = { [FILE]: 'fail-on: never\n' }

describe('the repository config file of a pull request', () => {
  it('based on the default branch: the base commit the event names, asking GitHub only for the file', async () => {
    const gh = world('main', { [BASE]: blocker, [HEAD]: never })
    const { file, notes } = await read(gh, {
      base: { sha: BASE, ref: 'main' },
      defaultBranch: 'main'
    })
    expect(file?.values.get('fail-on')).toBe('blocker')
    expect(notes).toEqual([])
    expect(gh.called()).toEqual(['getFileAtCommit'])
  })

  it("based on another branch: the default branch's head, whatever the base has (none, or its own), with one line naming the commit and why", async () => {
    for (const old of [{}, never]) {
      const gh = world('old-release', { [BASE]: old, [HEAD]: blocker })
      const { file, notes } = await read(gh, {
        base: { sha: BASE, ref: 'old-release' },
        defaultBranch: 'main'
      })
      expect(file?.values.get('fail-on')).toBe('blocker')
      expect(notes).toEqual([
        `${FILE} is read from the default branch 'main' at dddddddddddd, not from the base branch 'old-release' (aaaaaaaaaaaa) of pull request #42: the repository's policy lives on its default branch, and a pull request can be retargeted to any branch.`
      ])
      expect(
        gh.calls.find((c) => c.method === 'getFileAtCommit')?.args
      ).toEqual([FILE, HEAD, expect.any(Number)])
    }
  })

  it('an event that names neither (a comment): GitHub is asked for the base and the default branch, once each', async () => {
    const gh = world('old-release', { [BASE]: never, [HEAD]: blocker })
    const { file } = await read(gh, {})
    expect(file?.values.get('fail-on')).toBe('blocker')
    expect(gh.called()).toEqual([
      'getPullBase',
      'getDefaultBranch',
      'getBranchHead',
      'getFileAtCommit'
    ])
  })

  it("the default branch has no file: the defaults apply (the repository's own choice)", async () => {
    const gh = world('old-release', { [BASE]: never, [HEAD]: {} })
    const { file } = await read(gh, { defaultBranch: 'main' })
    expect(file).toBeUndefined()
  })

  it("a link or a folder at the default branch's head is refused naming the file and the branch; its keys' errors name it too", async () => {
    const cases: [Record<string, ServerTreeEntry>, RegExp][] = [
      [
        { [FILE]: { symlink: 'real.yml' }, '.github/real.yml': 'x: 1\n' },
        /\.github\/massgen-action\.yml is a link in the default branch 'main' .*read from default branch 'main' at dddddddddddd/
      ],
      [{ [`${FILE}/inner`]: 'x' }, /is a folder in the default branch 'main'/]
    ]
    for (const [tree, said] of cases) {
      const gh = world('old-release', { [HEAD]: tree })
      const error = await read(gh, { defaultBranch: 'main' }).catch(
        (e: unknown) => e
      )
      expect(error).toBeInstanceOf(InputError)
      expect(String(error)).toMatch(said)
    }
    // The keys are checked where the inputs are; their errors start with this.
    const gh = world('old-release', { [HEAD]: { [FILE]: 'fail-on: x\n' } })
    const { file } = await read(gh, { defaultBranch: 'main' })
    expect(file?.origin).toBe(
      `${FILE} at default branch 'main' at dddddddddddd`
    )
  })

  it('GitHub cannot name the default branch or its commit: an InputError, nothing read', async () => {
    const gone = world('old-release', { [HEAD]: blocker })
    gone.state.branches = {}
    await expect(read(gone, { defaultBranch: 'main' })).rejects.toThrow(
      /the commit the default branch 'main' is at could not be found: .*Not Found/
    )
    const failing = world('old-release', { [HEAD]: blocker })
    failing.api.getDefaultBranch = () => Promise.reject(new Error('API down'))
    await expect(read(failing, {})).rejects.toThrow(
      /the default branch could not be found: Error: API down\. Nothing was run\./
    )
    for (const gh of [gone, failing])
      expect(gh.called()).not.toContain('getFileAtCommit')
  })

  it('no token to read it with: an InputError, never the defaults; an event naming no base for outside code reads none and leaves it to the permission gate', async () => {
    const read = (source: Parameters<typeof readSettingsFile>[0]) =>
      readSettingsFile(source, {
        workspace: '/nonexistent',
        github: undefined,
        note: () => {}
      })
    await expect(read(SOURCE)).rejects.toThrow(
      /needs input 'github-token' \(with contents: read\)\. Nothing was run\./
    )
    await expect(
      read({ from: 'none', why: 'a workflow_run event for outside code' })
    ).resolves.toBeUndefined()
  })
})
