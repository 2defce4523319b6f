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
import { listFiles } from '../../test-support/run-action.js'
import { commentsOn, githubWithPull } from '../../test-support/loopback.js'
import { KEYS } from '../../test-support/fixtures.js'
import { prRun } from '../../test-support/pr-run.js'

/** The github-token run-action gives the action. */
const TOKEN = 'ghs_e2eTokenValue00000000000000000000000'

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
      const run = await prRun(github, {
        inputs: {
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

/** `fold -w width`: how `base64` (76) and `xxd -p` (60) print. */
const wrap = (text: string, width: number) =>
  (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join('\n')

/** `xxd` without options: offset, eight 4-digit groups, the printable column. */
function xxdDump(bytes: Buffer): string {
  const lines: string[] = []
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16)
    const groups = (row.toString('hex').match(/.{1,4}/g) ?? []).join(' ')
    const text = [...row]
      .map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.'))
      .join('')
    lines.push(
      `${at.toString(16).padStart(8, '0')}: ${groups.padEnd(39)}  ${text}`
    )
  }
  return lines.join('\n')
}

/** `hexdump -C`: offset, sixteen 2-digit groups, `|printable|`. */
function hexdumpC(bytes: Buffer): string {
  const lines: string[] = []
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16)
    const hexes = [...row].map((b) => b.toString(16).padStart(2, '0'))
    const left = hexes.slice(0, 8).join(' ')
    const right = hexes.slice(8).join(' ')
    const text = [...row]
      .map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.'))
      .join('')
    lines.push(
      `${at.toString(16).padStart(8, '0')}  ${left.padEnd(23)}  ${right.padEnd(23)}  |${text}|`
    )
  }
  return lines.join('\n')
}

/** What an agent's shell prints for `echo $KEY | <tool>`, real line widths. */
function wrappedEncodings(
  name: string,
  secret: string
): Array<[string, string]> {
  const line = Buffer.from(`${secret}\n`)
  return [
    [`${name}: echo | base64`, wrap(line.toString('base64'), 76)],
    [
      `${name}: echo | base64 with CRLF`,
      wrap(line.toString('base64'), 76).replace(/\n/g, '\r\n')
    ],
    [`${name}: echo | xxd -p`, wrap(line.toString('hex'), 60)],
    [`${name}: echo | xxd`, xxdDump(line)],
    [`${name}: echo | hexdump -C`, hexdumpC(line)],
    [`${name}: spaced out`, [...secret].join(' ')]
  ]
}

const WRAPPED = [
  ...wrappedEncodings('openai', KEYS.openai),
  ...wrappedEncodings('anthropic', KEYS.anthropic),
  ...wrappedEncodings('token', TOKEN)
]

/** Hex digits of a dump's hex columns, joined (xxd, hexdump -C). */
const dumpHexOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map(
      (l) => /^\s*[0-9a-f]{8}:?((?:\s{1,2}[0-9a-f]{2,4})+)/i.exec(l)?.[1] ?? ''
    )
    .join('')
    .replace(/\s/g, '')

/**
 * The wrapped attacks a text still lets one decode: the encoded middle with
 * white space left out, the hex of a dump, or a 16-character run of a key
 * (a dump's printable column).
 */
function decodable(text: string): string[] {
  const flat = text.replace(/\s/g, '')
  const hexes = dumpHexOf(text)
  return WRAPPED.filter(([how, encoded]) => {
    const middle = encoded.replace(/\s/g, '')
    const core = middle.slice(8, middle.length - 8)
    if (flat.includes(core) || hexes.includes(core)) return true
    const secret = how.startsWith('openai')
      ? KEYS.openai
      : how.startsWith('anthropic')
        ? KEYS.anthropic
        : TOKEN
    const hex = Buffer.from(secret).toString('hex')
    if (hexes.includes(hex.slice(8, hex.length - 8))) return true
    return how.endsWith('xxd') || how.endsWith('hexdump -C')
      ? text.includes(secret.slice(16, 32))
      : false
  }).map(([how]) => how)
}

describe('encoded secrets of real length, wrapped as a shell prints them', () => {
  it('attack: an agent posts `echo $KEY | base64`, `xxd -p`, `xxd` and `hexdump -C` of a 164-char OpenAI and a 108-char Anthropic key and the token — nothing decodes', async () => {
    const answer = [
      'Review done. Encoded debug data follows.',
      ...WRAPPED.map(([how, text]) => `${how}:\n\`\`\`\n${text}\n\`\`\``)
    ].join('\n')
    const run = await prRun(github, {
      inputs: {
        models: 'openai/gpt-5.4 claude/claude-opus-4-6',
        'gemini-api-key': undefined,
        'anthropic-api-key': KEYS.anthropic,
        'comment-tag': 'wrapped',
        'max-duration': '30'
      },
      env: { FAKE_MASSGEN_SCENARIO: 'success', FAKE_MASSGEN_ANSWER: answer }
    })
    expect(run.outputs.status).toBe('success')
    // The attack as written would be caught by the check.
    expect(decodable(answer)).toHaveLength(WRAPPED.length)
    const comment =
      commentsOn(github, 42).find((b) => b.includes('tag=wrapped')) ?? ''
    expect(comment).toContain('Review done.')
    expect(decodable(comment)).toEqual([])
    expect(decodable(run.summary)).toEqual([])
    expect(decodable(run.outputs.answer ?? '')).toEqual([])
    for (const file of listFiles(run.state['work-dir'] ?? ''))
      expect({
        file,
        decodable: decodable(fs.readFileSync(file, 'latin1').slice(0, 1 << 22))
      }).toEqual({ file, decodable: [] })
  }, 120_000)
})
