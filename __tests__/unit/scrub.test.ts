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
})
