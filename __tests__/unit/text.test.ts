// The plain-text helpers every stage uses (src/core/text.ts).
import { describe, expect, it } from '@jest/globals'
import {
  clipBytes,
  clipBytesFromEnd,
  decodeHead,
  unescapeC
} from '../../src/core/text.js'

describe('byte limits on UTF-8', () => {
  it('never cut a character in half, from either end', () => {
    expect(clipBytes('a😀b', 3)).toBe('a')
    expect(clipBytes('a😀b', 5)).toBe('a😀')
    expect(clipBytes('abc', 10)).toBe('abc')
    expect(clipBytesFromEnd('a😀b', 3)).toBe('b')
    expect(clipBytesFromEnd('a😀b', 5)).toBe('😀b')
    expect(decodeHead(Buffer.from('été', 'utf8').subarray(0, 4))).toBe('ét')
  })
})

describe('unescapeC', () => {
  it("reads git's quoted names: octal bytes of UTF-8, letter escapes, quotes and backslashes", () => {
    expect(unescapeC('caf\\303\\251.ts')).toBe('café.ts')
    expect(unescapeC('a\\tb\\nc')).toBe('a\tb\nc')
    expect(unescapeC('say \\"hi\\" \\\\ there')).toBe('say "hi" \\ there')
  })

  it("reads getfacl's escapes and keeps a backslash that escapes nothing known", () => {
    expect(unescapeC('/r/my\\040file')).toBe('/r/my file')
    expect(unescapeC('/r/été\\134x')).toBe('/r/été\\x')
    expect(unescapeC('/r/a\\12')).toBe('/r/a\\12')
    expect(unescapeC('end\\')).toBe('end\\')
  })

  it('keeps characters outside the BMP whole beside escapes', () => {
    expect(unescapeC('😀\\040😀')).toBe('😀 😀')
  })
})
