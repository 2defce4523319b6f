import { afterEach, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  readAgentFile,
  rewriteAgentFile,
  walkFiles,
  writeAgentFile
} from '../../src/safety/agent-files.js'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0))
    fs.rmSync(dir, { recursive: true, force: true })
})

/** A work folder and, beside it, an outside file and folder. */
function world() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-files-'))
  made.push(dir)
  const root = path.join(dir, 'work')
  fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true })
  fs.writeFileSync(path.join(root, 'a', 'b', 'file.txt'), 'inside')
  const outsideDir = path.join(dir, 'outside')
  fs.mkdirSync(outsideDir)
  const outside = path.join(outsideDir, 'file.txt')
  fs.writeFileSync(outside, 'outside')
  return { root, outside, outsideDir }
}

const upper = (
  source: fs.promises.FileHandle,
  target: fs.promises.FileHandle
) =>
  source
    .readFile('utf8')
    .then((t) => target.writeFile(t.toUpperCase()))
    .then(() => undefined)

describe('agent-files', () => {
  it('walks regular files only, never into a linked folder', () => {
    const w = world()
    fs.symlinkSync(w.outsideDir, path.join(w.root, 'a', 'linked'))
    fs.symlinkSync(w.outside, path.join(w.root, 'link.txt'))
    expect([...walkFiles(w.root)].map((f) => f.rel)).toEqual(['a/b/file.txt'])
  })

  it('a folder swapped for a link after the walk is not written through', async () => {
    const w = world()
    const [file] = [...walkFiles(w.root)]
    // The agent's swap, between the walk and the rewrite.
    fs.renameSync(path.join(w.root, 'a', 'b'), path.join(w.root, 'a', 'old'))
    fs.symlinkSync(w.outsideDir, path.join(w.root, 'a', 'b'))
    await expect(
      rewriteAgentFile(w.root, file?.rel ?? '', upper)
    ).rejects.toThrow()
    await expect(writeAgentFile(w.root, 'a/b/file.txt', 'x')).rejects.toThrow()
    expect(await readAgentFile(w.root, 'a/b/file.txt', 100)).toBeUndefined()
    expect(fs.readFileSync(w.outside, 'utf8')).toBe('outside')
    expect(fs.readdirSync(w.outsideDir)).toEqual(['file.txt'])
  })

  it('a file that is a link is neither read nor rewritten', async () => {
    const w = world()
    fs.symlinkSync(w.outside, path.join(w.root, 'answer.txt'))
    expect(await readAgentFile(w.root, 'answer.txt', 100)).toBeUndefined()
    expect(await rewriteAgentFile(w.root, 'answer.txt', upper)).toBe(false)
    expect(fs.readFileSync(w.outside, 'utf8')).toBe('outside')
  })

  it('writing over a link replaces the link, never its target', async () => {
    const w = world()
    const at = path.join(w.root, 'answer.md')
    fs.symlinkSync(w.outside, at)
    await writeAgentFile(w.root, 'answer.md', 'the answer')
    expect(fs.lstatSync(at).isFile()).toBe(true)
    expect(fs.readFileSync(at, 'utf8')).toBe('the answer')
    expect(fs.readFileSync(w.outside, 'utf8')).toBe('outside')
  })

  it('rewrites a regular file in place of itself, keeping its mode, leaving no temporary file', async () => {
    const w = world()
    const file = path.join(w.root, 'a', 'b', 'file.txt')
    fs.chmodSync(file, 0o640)
    expect(await rewriteAgentFile(w.root, 'a/b/file.txt', upper)).toBe(true)
    expect(fs.readFileSync(file, 'utf8')).toBe('INSIDE')
    expect(fs.statSync(file).mode & 0o777).toBe(0o640)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['file.txt'])
  })

  it('refuses names that climb out', async () => {
    const w = world()
    await expect(writeAgentFile(w.root, '../escape.txt', 'x')).rejects.toThrow(
      /not a plain file name/
    )
  })
})
