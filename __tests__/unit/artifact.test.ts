import { describe, expect, it, jest } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  artifactName,
  artifactUrl,
  selectLogFiles,
  stageLogs,
  uploadLogs,
  WINNING_ANSWER_FILE,
  type ArtifactUploader
} from '../../src/report/artifact.js'
import { redactingStream } from '../../src/safety/redact.js'

const SECRET = 'sk-testSECRETvalue0123456789abcdef'
const TOKEN = 'ghs_tokenVALUE00000000000000000000000'

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'artifact-test-'))
}

function write(root: string, rel: string, text: string): void {
  const file = path.join(root, ...rel.split('/'))
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

/** A log folder shaped like MassGen 0.1.97's, with workspaces and snapshots. */
function logFolder(): string {
  const root = path.join(tmp(), 'log_20261130_120000_000001')
  const a = 'turn_1/attempt_1'
  write(root, `${a}/status.json`, `{"winner":"agent_a","leak":"${SECRET}"}`)
  write(root, `${a}/massgen.log`, `line 1\nkey=${SECRET}\ntoken ${TOKEN}\n`)
  write(root, `${a}/events.jsonl`, '{"e":1}\n')
  write(root, `${a}/metrics_summary.json`, '{}')
  write(root, `${a}/metrics_events.json`, '[]')
  write(root, `${a}/execution_metadata.yaml`, 'query: q\n')
  write(root, `${a}/agent_outputs/agent_a.txt`, 'out')
  write(root, `${a}/agent_a/20261130_120001_000000/answer.txt`, 'Answer A')
  write(root, `${a}/agent_a/20261130_120001_000000/execution_trace.md`, 'trace')
  write(
    root,
    `${a}/agent_a/20261130_120001_000000/workspace/notes.md`,
    'agent file'
  )
  write(
    root,
    `${a}/agent_a/20261130_120002_000000/vote.json`,
    '{"voted_for":"agent_a"}'
  )
  write(root, `${a}/final/agent_a/answer.txt`, 'Answer A')
  write(root, `${a}/final/agent_a/workspace/src/main.ts`, 'code')
  write(root, `${a}/snapshots/agent_a/file.txt`, 'snapshot')
  write(root, `${a}/temp_workspaces/agent_a/file.txt`, 'temp')
  write(root, `${a}/workspaces/agent_a/.env`, `OPENAI_API_KEY=${SECRET}`)
  write(root, `${a}/agent_a/20261130_120001_000000/image.png`, 'binary')
  write(root, 'turn_1/final/agent_a/answer.txt', 'Answer A')
  // A link out of the folder is never followed.
  fs.symlinkSync('/etc/passwd', path.join(root, a, 'linked.txt'))
  return root
}

function sink(out: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(chunk)
      done()
    }
  })
}

async function redactText(
  text: string,
  secrets: string[],
  chunk: number
): Promise<string> {
  const pieces: Buffer[] = []
  const bytes = Buffer.from(text, 'utf8')
  for (let i = 0; i < bytes.length; i += chunk)
    pieces.push(bytes.subarray(i, i + chunk))
  const out: Buffer[] = []
  await pipeline(Readable.from(pieces), redactingStream(secrets), sink(out))
  return Buffer.concat(out).toString('utf8')
}

describe('selectLogFiles', () => {
  it('takes the logs, answers, votes, status, metrics and events, and no workspace, snapshot, link or binary', () => {
    const a = 'turn_1/attempt_1'
    expect(selectLogFiles(logFolder())).toEqual([
      `${a}/agent_a/20261130_120001_000000/answer.txt`,
      `${a}/agent_a/20261130_120001_000000/execution_trace.md`,
      `${a}/agent_a/20261130_120002_000000/vote.json`,
      `${a}/agent_outputs/agent_a.txt`,
      `${a}/events.jsonl`,
      `${a}/execution_metadata.yaml`,
      `${a}/final/agent_a/answer.txt`,
      `${a}/massgen.log`,
      `${a}/metrics_events.json`,
      `${a}/metrics_summary.json`,
      `${a}/status.json`,
      'turn_1/final/agent_a/answer.txt'
    ])
  })

  it('is empty for a missing folder', () => {
    expect(selectLogFiles(path.join(tmp(), 'nope'))).toEqual([])
  })
})

describe('stageLogs', () => {
  it('copies the selected files redacted, with the winning answer beside them', async () => {
    const staging = path.join(tmp(), 'stage')
    const staged = await stageLogs(logFolder(), staging, {
      secrets: [SECRET, TOKEN],
      winningAnswer: `The full answer, key ${SECRET}.`
    })
    expect(staged.files).toHaveLength(13)
    expect(staged.skipped).toEqual([])
    const answer = fs.readFileSync(
      path.join(staging, WINNING_ANSWER_FILE),
      'utf8'
    )
    expect(answer).toBe('The full answer, key ***.')
    const log = fs.readFileSync(
      path.join(staging, 'turn_1/attempt_1/massgen.log'),
      'utf8'
    )
    expect(log).toBe('line 1\nkey=***\ntoken ***\n')
    for (const file of staged.files) {
      expect(file.startsWith(staging + path.sep)).toBe(true)
      const text = fs.readFileSync(file, 'latin1')
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain(TOKEN)
    }
    expect(
      fs.existsSync(
        path.join(staging, 'turn_1/attempt_1/final/agent_a/workspace')
      )
    ).toBe(false)
  })

  it('leaves out files over the size limit and says which', async () => {
    const staging = path.join(tmp(), 'stage')
    const root = logFolder()
    write(root, 'turn_1/attempt_1/massgen.log', 'x'.repeat(5000))
    const staged = await stageLogs(root, staging, { maxBytes: 1000 })
    expect(staged.skipped).toContain('turn_1/attempt_1/massgen.log')
    expect(staged.bytes).toBeLessThanOrEqual(1000)
    expect(
      fs.readFileSync(path.join(staging, 'SKIPPED.txt'), 'utf8')
    ).toContain('turn_1/attempt_1/massgen.log')
  })
})

describe('redactingStream', () => {
  it('finds a secret split across any chunk boundary', async () => {
    const text =
      `${'a '.repeat(300)}${SECRET} then ${'b'.repeat(700)} ${TOKEN}\n`.repeat(
        4
      )
    for (const chunk of [1, 7, 33, 64, 255, 256, 257, 1000]) {
      const out = await redactText(text, [SECRET, TOKEN], chunk)
      expect(out).not.toContain(SECRET)
      expect(out).not.toContain(TOKEN)
      expect(out).toBe(text.split(SECRET).join('***').split(TOKEN).join('***'))
    }
  })

  it('keeps bytes that are not UTF-8 and matches non-ASCII secrets', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41])
    const out: Buffer[] = []
    await pipeline(Readable.from([bytes]), redactingStream([]), sink(out))
    expect(Buffer.concat(out)).toEqual(bytes)
    expect(await redactText('pass: pässwörd-Ω!', ['pässwörd-Ω'], 3)).toBe(
      'pass: ***!'
    )
  })

  it('redacts key-shaped tokens it was not told about, whole', async () => {
    const key = `sk-ant-${'Q'.repeat(120)}`
    const out = await redactText(`${'x '.repeat(200)}${key} end`, [], 50)
    expect(out).toBe(`${'x '.repeat(200)}*** end`)
  })

  it('holds a bounded tail, whatever the input size', async () => {
    const stream = redactingStream([SECRET])
    let fed = 0
    const total = 4 * 1024 * 1024
    let emitted = 0
    stream.on('data', (c: Buffer) => (emitted += c.length))
    for (let i = 0; i < total / 65536; i++) {
      fed += 65536
      stream.write(Buffer.alloc(65536, 'y'))
      // Never more than a few hundred bytes behind.
      expect(fed - emitted).toBeLessThan(4096)
    }
    stream.end()
  })
})

describe('uploadLogs', () => {
  const log = {
    info: jest.fn<(m: string) => void>(),
    warning: jest.fn<(m: string) => void>()
  }
  const env = {
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_RUN_ID: '4242'
  }

  it('skips, with an info line, without the artifact service', async () => {
    const result = await uploadLogs(logFolder(), {
      name: 'massgen-logs',
      log,
      env
    })
    expect(result).toBeUndefined()
    expect(log.info).toHaveBeenCalledWith(
      expect.stringContaining('ACTIONS_RUNTIME_TOKEN')
    )
  })

  it('uploads the staged folder and links the artifact, then removes the staging', async () => {
    const temp = tmp()
    let seen:
      | { name: string; files: string[]; root: string; texts: string[] }
      | undefined
    const client: ArtifactUploader = {
      async uploadArtifact(name, files, root) {
        seen = {
          name,
          files,
          root,
          texts: files.map((f) => fs.readFileSync(f, 'utf8'))
        }
        return { id: 99, size: 1 }
      }
    }
    const result = await uploadLogs(logFolder(), {
      name: 'massgen: logs/1',
      log,
      env: {
        ...env,
        ACTIONS_RUNTIME_TOKEN: 't',
        ACTIONS_RESULTS_URL: 'http://127.0.0.1:9'
      },
      secrets: [SECRET],
      winningAnswer: 'win',
      tempDir: temp,
      client
    })
    expect(result).toEqual({
      id: 99,
      url: 'https://github.com/octo-org/octo-repo/actions/runs/4242/artifacts/99'
    })
    expect(seen?.name).toBe('massgen_ logs_1')
    expect(seen?.files.every((f) => f.startsWith(seen?.root ?? '?'))).toBe(true)
    expect(seen?.texts.join('\n')).not.toContain(SECRET)
    expect(fs.readdirSync(temp)).toEqual([])
  })

  it('warns and returns undefined when the upload fails, without the secret', async () => {
    const warning = jest.fn<(m: string) => void>()
    const client: ArtifactUploader = {
      uploadArtifact: () => Promise.reject(new Error(`denied for ${SECRET}`))
    }
    const result = await uploadLogs(logFolder(), {
      name: 'x',
      log: { info: () => {}, warning },
      secrets: [SECRET],
      client,
      tempDir: tmp()
    })
    expect(result).toBeUndefined()
    expect(warning).toHaveBeenCalledWith(
      expect.stringContaining('denied for ***')
    )
  })
})

describe('artifactUrl and artifactName', () => {
  it('builds the link only for a known run', () => {
    expect(
      artifactUrl({ GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '1' }, 5)
    ).toBe('https://github.com/o/r/actions/runs/1/artifacts/5')
    expect(
      artifactUrl(
        {
          GITHUB_SERVER_URL: 'https://ghe.example/',
          GITHUB_REPOSITORY: 'o/r',
          GITHUB_RUN_ID: '1'
        },
        5
      )
    ).toBe('https://ghe.example/o/r/actions/runs/1/artifacts/5')
    expect(artifactUrl({ GITHUB_REPOSITORY: 'o/r' }, 5)).toBeUndefined()
    expect(
      artifactUrl({ GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '1' }, undefined)
    ).toBeUndefined()
  })

  it('replaces the characters GitHub refuses', () => {
    expect(artifactName('a:b/c\\d*e?f|g<h>i"j')).toBe('a_b_c_d_e_f_g_h_i_j')
    expect(artifactName('  ')).toBe('massgen-logs')
  })
})
