// Encoded secrets: an agent that wants a key out does not print it as it
// is, it encodes it (an agent posted the token base64-encoded). The action
// redacts the forms a shell one-liner gives and it can recognise: base64 at
// every alignment (standard and URL-safe, padded or not, `x-access-token:`
// headers included), hex, URL encoding and the reversed string. Played
// through the bundled action: the answer is posted (comment, summary), set
// as outputs, uploaded in the logs artifact and left in the work folder.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import {
  fakeRuntimeToken,
  readZip,
  startArtifactServer
} from '../../test-support/artifact-server.js'
import type { GitHubServer } from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  listFiles,
  runAction
} from '../../test-support/run-action.js'
import { commentsOn, event, githubWithPull, KEYS } from '../e2e/helpers.js'

/** The github-token run-action gives the action. */
const TOKEN = 'ghs_e2eTokenValue0000000000000000000000'

let github: GitHubServer
beforeAll(async () => {
  github = await githubWithPull()
})
afterAll(async () => {
  await github.close()
})

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url')
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex')

/** What an agent's shell gives for a secret, each as the attacker wrote it. */
function encodings(secret: string): Record<string, string> {
  return {
    base64: b64(secret),
    'base64 of a line holding it': b64(`KEY=${secret}\n`),
    'base64, shifted one byte': b64(`k${secret}`),
    'base64 url-safe, no padding': b64url(`xy${secret}`),
    'git basic auth header': b64(`x-access-token:${secret}`),
    'hex lower': hex(secret),
    'hex upper': hex(secret).toUpperCase(),
    'percent-encoded bytes': hex(secret).replace(/../g, '%$&'),
    reversed: [...secret].reverse().join('')
  }
}

const ATTACKS = [
  ...Object.entries(encodings(KEYS.openai)),
  ...Object.entries(encodings(TOKEN))
]
const ANSWER = [
  'Review done. Debug data follows.',
  ...ATTACKS.map(([how, text]) => `- ${how}: ${text}`)
].join('\n')

/**
 * Which attacks a text still carries: its middle part (the characters that
 * depend on the secret alone, whatever the neighbours) is what must go.
 */
function carried(text: string): string[] {
  return ATTACKS.filter(([, encoded]) =>
    text.includes(encoded.slice(4, encoded.length - 4))
  ).map(([how]) => how)
}

describe('encoded secrets', () => {
  it('attack: an agent posts the keys and the token base64-, hex-, URL-encoded and reversed — fails', async () => {
    const artifacts = await startArtifactServer()
    try {
      const run = await runAction({
        eventName: 'pull_request',
        payload: event('pull_request.opened'),
        githubApiUrl: github.url,
        inputs: {
          query: 'Is the parser change safe?',
          models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview',
          'openai-api-key': KEYS.openai,
          'gemini-api-key': KEYS.google,
          'massgen-command': FAKE_MASSGEN,
          'comment-tag': 'encoded',
          'max-duration': '30'
        },
        env: {
          FAKE_MASSGEN_SCENARIO: 'success',
          FAKE_MASSGEN_ANSWER: ANSWER,
          ACTIONS_RESULTS_URL: `${artifacts.url}/`,
          ACTIONS_RUNTIME_TOKEN: fakeRuntimeToken()
        }
      })
      expect(run.outputs.status).toBe('success')
      const comment = commentsOn(github, 42).find((b) =>
        b.includes('tag=encoded')
      )
      expect(comment).toContain('Review done.')
      expect(carried(comment ?? '')).toEqual([])
      expect(carried(run.summary)).toEqual([])
      expect(carried(run.outputs.answer ?? '')).toEqual([])
      // The artifact, every file of it.
      expect(artifacts.artifacts).toHaveLength(1)
      const zip = readZip(artifacts.artifacts[0]?.bytes ?? Buffer.alloc(0))
      expect(zip.get('winning-answer.md')?.toString()).toContain('Review done.')
      for (const [name, content] of zip)
        expect({ name, carried: carried(content.toString('latin1')) }).toEqual({
          name,
          carried: []
        })
      // The work folder after the scrub: answers, final answer, answer.md.
      const workDir = run.state['work-dir'] ?? ''
      const files = listFiles(workDir)
      expect(files.length).toBeGreaterThan(3)
      for (const file of files)
        expect({
          file,
          carried: carried(fs.readFileSync(file, 'latin1'))
        }).toEqual({ file, carried: [] })
    } finally {
      await artifacts.close()
    }
  }, 120_000)
})
