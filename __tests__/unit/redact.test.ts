import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  base64Core,
  REDACTED,
  matchSpans,
  redactingStream,
  redactionNeedles,
  redactSecrets,
  secretForms
} from '../../src/safety/redact.js'

const SECRET = 'sk-test-Secret+/Value_123'

describe('secretForms', () => {
  it('lists the value, base64 cores, hex, URL encodings and the reversed string', () => {
    const forms = secretForms(SECRET)
    const hex = Buffer.from(SECRET).toString('hex')
    expect(forms).toEqual(
      expect.arrayContaining([
        SECRET,
        hex,
        hex.toUpperCase(),
        encodeURIComponent(SECRET),
        hex.replace(/../g, '%$&'),
        [...SECRET].reverse().join('')
      ])
    )
  })

  it('gives short values no encoded forms (they would hit at random)', () => {
    expect(secretForms('abcd123')).toEqual(['abcd123'])
  })
})

describe('base64Core', () => {
  it('is found in the base64 of any text holding the secret, standard or URL-safe', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40 }),
        fc.string({ maxLength: 10 }),
        fc.string({ maxLength: 10 }),
        (secret, before, after) => {
          const plain = Buffer.from(before + secret + after, 'utf8')
          const align = (Buffer.byteLength(before, 'utf8') % 3) as 0 | 1 | 2
          const core = base64Core(Buffer.from(secret, 'utf8'), align)
          expect(plain.toString('base64')).toContain(core)
          const url = core.replace(/\+/g, '-').replace(/\//g, '_')
          expect(plain.toString('base64url')).toContain(url)
        }
      )
    )
  })
})

describe('redactSecrets', () => {
  it('redacts every encoded form an agent could post', () => {
    const b64 = (t: string) => Buffer.from(t).toString('base64')
    // Each attack, and how many of its characters encode other text.
    const attacks: Array<[string, number]> = [
      [b64(SECRET), 0],
      [b64(`x-access-token:${SECRET}`), 20],
      [b64(`A${SECRET}`).replace(/=+$/, ''), 0],
      [Buffer.from(`AB${SECRET}`).toString('base64url'), 0],
      [Buffer.from(SECRET).toString('hex').toUpperCase(), 0],
      [encodeURIComponent(SECRET), 0],
      [[...SECRET].reverse().join(''), 0]
    ]
    for (const [attack, other] of attacks) {
      const out = redactSecrets(`before ${attack} after`, [SECRET])
      expect(out).toContain('***')
      // Left of the encoding: the other text's part, and at most a couple
      // of edge characters mixing in a neighbour's bits, and padding.
      expect(out.replace('***', '').length).toBeLessThanOrEqual(
        'before  after'.length + other + 6
      )
    }
  })

  it('merges overlapping matches into one redaction', () => {
    expect(matchSpans('xxabcdefyy', ['abcd', 'cdef'])).toEqual([[2, 8]])
    expect(redactSecrets('xxabcdefyy', ['abcd', 'cdef'])).toBe('xx***yy')
  })

  it('scans in time linear in the text (side-by-side ratio)', () => {
    const needles = redactionNeedles([SECRET, 'another-secret-value-42'])
    // CPU time of this process, not wall time: on a loaded machine a run
    // waits for the CPU, and that wait would land in one side of the ratio.
    const cpu = () => {
      const { user, system } = process.cpuUsage()
      return user + system
    }
    const time = (n: number) => {
      const text = 'a'.repeat(n)
      const start = cpu()
      for (let i = 0; i < 5; i++) matchSpans(text, needles)
      return Math.max(1, cpu() - start)
    }
    time(50_000)
    // Interleaved, best of five: the collector and cache misses come and go.
    let small = Infinity
    let large = Infinity
    for (let round = 0; round < 5; round++) {
      small = Math.min(small, time(50_000))
      large = Math.min(large, time(1_600_000))
    }
    // 32x the text: linear is ~32x, quadratic ~1024x. The bound sits 10x
    // above linear, so only a loaded machine's noise of that size (not the
    // 2-6x seen here under load) could fail it, and 3x below quadratic.
    expect(large / small).toBeLessThan(320)
  })
})

describe('redactingStream', () => {
  it('redacts encoded forms split across any chunk boundary', async () => {
    const encoded = Buffer.from(`token:${SECRET}`).toString('base64')
    const text = `${'z '.repeat(200)}${encoded} and ${Buffer.from(SECRET).toString('hex')}\n`
    for (const size of [1, 5, 64, 300]) {
      const chunks: Buffer[] = []
      const bytes = Buffer.from(text)
      const pieces = []
      for (let i = 0; i < bytes.length; i += size)
        pieces.push(bytes.subarray(i, i + size))
      await pipeline(
        Readable.from(pieces),
        redactingStream([SECRET]),
        new Writable({
          write(c: Buffer, _e, done) {
            chunks.push(c)
            done()
          }
        })
      )
      expect(Buffer.concat(chunks).toString()).toBe(
        redactSecrets(text, [SECRET])
      )
    }
  })
})

describe('wrapped and dumped encodings of a real-length key', () => {
  const key = 'sk-proj-' + 'Zx9_Qw-'.repeat(22) + 'AB'
  const line = Buffer.from(`${key}\n`)
  const wrap = (text: string, width: number) =>
    (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join('\n')
  it.each([
    ['base64 at 76 columns', wrap(line.toString('base64'), 76)],
    ['xxd -p at 60 columns', wrap(line.toString('hex'), 60)],
    ['spaced out', [...key].join(' ')]
  ])('redacts %s', (_how, encoded) => {
    const out = redactSecrets(`before\n${encoded}\nafter`, [key])
    // What is left is at most the encoded line end (`IK`, `0a`).
    expect(out).toMatch(/^before\n\*\*\*[A-Za-z0-9=]{0,4}\nafter$/)
  })
  it('redacts the stream too, a chunk boundary inside the wrapped form', async () => {
    const text = `x\n${wrap(line.toString('base64'), 76)}\ny`
    const stream = redactingStream([key])
    const chunks: Buffer[] = []
    stream.on('data', (c: Buffer) => chunks.push(c))
    stream.write(Buffer.from(text.slice(0, 100), 'latin1'))
    stream.end(Buffer.from(text.slice(100), 'latin1'))
    await new Promise((resolve) => stream.on('end', resolve))
    expect(Buffer.concat(chunks).toString('latin1')).toBe(`x\n${REDACTED}IK\ny`)
  })
})
