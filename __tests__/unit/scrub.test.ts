import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { scrubSecrets } from '../../src/safety/scrub.js'

const KEY = 'sk-scrubTestKey0123456789abcdef'

describe('scrubSecrets', () => {
  it('rewrites only the files that hold a key, across chunk edges, never through links', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrub-'))
    fs.mkdirSync(path.join(dir, 'a', 'b'), { recursive: true })
    fs.writeFileSync(path.join(dir, 'a', 'clean.txt'), 'nothing here')
    fs.writeFileSync(
      path.join(dir, 'a', 'b', 'answer.txt'),
      `env: OPENAI_API_KEY=${KEY}\n`
    )
    // The key straddles the 1 MiB read boundary.
    const big = 'x'.repeat(1024 * 1024 - 10) + KEY + 'y'.repeat(100)
    fs.writeFileSync(path.join(dir, 'big.log'), big)
    const outside = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'outside-')),
      'f.txt'
    )
    fs.writeFileSync(outside, KEY)
    fs.symlinkSync(outside, path.join(dir, 'link.txt'))

    const result = await scrubSecrets(dir, [KEY])
    expect(result.scrubbed.map((f) => path.relative(dir, f)).sort()).toEqual([
      'a/b/answer.txt',
      'big.log'
    ])
    expect(
      fs.readFileSync(path.join(dir, 'a', 'b', 'answer.txt'), 'utf8')
    ).toBe('env: OPENAI_API_KEY=***\n')
    const scrubbed = fs.readFileSync(path.join(dir, 'big.log'), 'utf8')
    expect(scrubbed).not.toContain(KEY)
    expect(scrubbed.length).toBe(big.length - KEY.length + 3)
    expect(fs.readFileSync(outside, 'utf8')).toBe(KEY)
    expect(fs.readFileSync(path.join(dir, 'a', 'clean.txt'), 'utf8')).toBe(
      'nothing here'
    )
  })

  it('is bounded: a file over the size limit is removed unread (a link to one is left alone); the total budget stops it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrub-limits-'))
    fs.writeFileSync(path.join(dir, 'small.txt'), `k=${KEY}\n`)
    // Sparse: 1 TiB of nothing, read at no cost by nobody.
    fs.closeSync(fs.openSync(path.join(dir, 'huge.bin'), 'w'))
    fs.truncateSync(path.join(dir, 'huge.bin'), 2 ** 40)
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'scrub-outside-'))
    fs.closeSync(fs.openSync(path.join(outside, 'big.bin'), 'w'))
    fs.truncateSync(path.join(outside, 'big.bin'), 2 ** 30)
    fs.symlinkSync(path.join(outside, 'big.bin'), path.join(dir, 'link.bin'))
    const limits = { fileBytes: 1024 * 1024, totalBytes: 2 ** 30, seconds: 60 }
    const result = await scrubSecrets(dir, [KEY], limits)
    expect(result.removed.map((f) => path.basename(f))).toEqual(['huge.bin'])
    expect(fs.existsSync(path.join(dir, 'huge.bin'))).toBe(false)
    expect(fs.existsSync(path.join(outside, 'big.bin'))).toBe(true)
    expect(result.scrubbed.map((f) => path.basename(f))).toEqual(['small.txt'])
    expect(result.stopped).toBeUndefined()

    const many = fs.mkdtempSync(path.join(os.tmpdir(), 'scrub-budget-'))
    for (let i = 0; i < 5; i++)
      fs.writeFileSync(path.join(many, `f${i}.txt`), 'x'.repeat(1000))
    const stopped = await scrubSecrets(many, [KEY], {
      ...limits,
      totalBytes: 3000
    })
    expect(stopped.stopped).toBe('bytes')
    expect(stopped.scanned).toBeLessThan(5)
  })
})
