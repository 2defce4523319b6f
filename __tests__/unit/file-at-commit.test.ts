// One reader of a file at a commit (github/contents.ts), through the real
// client over the loopback GitHub, which answers a link as GitHub does: the
// link itself when its target is outside the repository, the TARGET (its
// content and its path) when the target is a file inside it. Every reader
// that used to read a file at a commit its own way refuses a link now:
// the base's .gitattributes (one run and the matrix job), the repository's
// instructions (one run and the matrix job), the setup files (base-setup,
// played through the bundle in __tests__/security/base-setup.test.ts) and a
// voted file at the head (the aggregate, played through the bundle in
// __tests__/e2e/matrix-review.test.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { createGitHub, type GitHubApi } from '../../src/github/api.js'
import { baseAttributes } from '../../src/context/run-context.js'
import { attributesFor } from '../../src/context/gitattributes.js'
import { readProjectInstructions } from '../../src/context/project-instructions.js'
import { readBase } from '../../src/shards/matrix-job.js'
import type { Settings } from '../../src/core/types.js'
import {
  defaultState,
  startGitHubServer,
  type GitHubServer
} from '../../test-support/github-server.js'

const LINKED = 'a'.repeat(40)
const PLAIN = 'b'.repeat(40)
const MARKS = 'gen/** linguist-generated=true\n'
const RULES = 'Cite file:line.\n'

let server: GitHubServer
let github: GitHubApi
beforeAll(async () => {
  const state = defaultState()
  state.files = {
    // Links to files inside the repository (answered with the target) and
    // one to outside it (answered as a link).
    [LINKED]: {
      '.gitattributes': { symlink: 'docs/attributes' },
      'docs/attributes': MARKS,
      'AGENTS.md': { symlink: 'docs/rules.md' },
      'CLAUDE.md': { symlink: '/etc/passwd' },
      'docs/rules.md': RULES
    },
    [PLAIN]: { '.gitattributes': MARKS, 'AGENTS.md': RULES }
  }
  server = await startGitHubServer(state)
  github = createGitHub({
    token: 'ghs_test',
    owner: 'octo-org',
    repo: 'octo-repo',
    apiUrl: server.url,
    log: { info: () => {}, debug: () => {}, warning: () => {} }
  })
})
afterAll(async () => {
  await server.close()
})

function recordingLog(): {
  log: { info: () => void; warning: (m: string) => void }
  warnings: string[]
} {
  const warnings: string[] = []
  return { log: { info: () => {}, warning: (m) => warnings.push(m) }, warnings }
}

describe('one reader of a file at a commit', () => {
  it('answers a regular file with its text, and refuses a link inside or outside the repository', async () => {
    expect(await github.getFileAtCommit('AGENTS.md', PLAIN, 1000)).toEqual({
      kind: 'file',
      text: RULES,
      bytes: RULES.length
    })
    expect(await github.getFileAtCommit('AGENTS.md', LINKED, 1000)).toEqual({
      kind: 'link'
    })
    expect(await github.getFileAtCommit('CLAUDE.md', LINKED, 1000)).toEqual({
      kind: 'link'
    })
    expect(await github.getFileAtCommit('docs', LINKED, 1000)).toEqual({
      kind: 'not-a-file',
      type: 'dir'
    })
    expect(await github.getFileAtCommit('AGENTS.md', PLAIN, 4)).toEqual({
      kind: 'too-large',
      bytes: RULES.length
    })
    expect(await github.getFileAtCommit('nope.md', PLAIN, 1000)).toEqual({
      kind: 'absent'
    })
  })

  it("one run: the base's .gitattributes as a link gives no marks, and says why", async () => {
    const plain = recordingLog()
    const marks = await baseAttributes(github, PLAIN, plain.log)
    expect(marks && attributesFor(marks, 'gen/client.ts').generated).toBe(true)
    expect(plain.warnings).toEqual([])

    const linked = recordingLog()
    expect(await baseAttributes(github, LINKED, linked.log)).toBeUndefined()
    expect(linked.warnings).toEqual([
      "The base branch's .gitattributes is a link: not read, so no file is left out for linguist-generated or -diff."
    ])
  })

  it("one run: the repository's instructions as a link, inside or outside it, are not given", async () => {
    const linked = recordingLog()
    expect(
      await readProjectInstructions(github, LINKED, linked.log)
    ).toBeUndefined()
    expect(linked.warnings).toEqual([
      expect.stringMatching(/^AGENTS\.md at a{12} is a link: not given/),
      expect.stringMatching(/^CLAUDE\.md at a{12} is a link: not given/)
    ])
  })

  it('the matrix job: the shards are handed the links as links, never their targets', async () => {
    const settings = { projectInstructions: 'base' } as Settings
    expect(await readBase(github, LINKED, settings)).toEqual({
      files: {
        '.gitattributes': { kind: 'link' },
        'AGENTS.md': { kind: 'link' },
        'CLAUDE.md': { kind: 'link' }
      }
    })
    expect(
      (await readBase(github, PLAIN, settings)).files['.gitattributes']
    ).toEqual({ kind: 'file', text: MARKS, bytes: MARKS.length })
  })
})
