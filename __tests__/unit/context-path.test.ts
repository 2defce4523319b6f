// confineToWorkspace: the path that reaches the agents is inside the
// workspace with no link on the way; the bundle-level attacks are in
// __tests__/security/context-path.test.ts.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  ContextPathError,
  confineToWorkspace,
  recheckConfined
} from '../../src/safety/context-path.js'

function workspace(): string {
  const dir = fs.realpathSync(
    fs.mkdtempSync(path.join(os.tmpdir(), 'confine-'))
  )
  fs.mkdirSync(path.join(dir, 'ws', 'src', 'deep'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'ws', 'src', 'a.ts'), 'a\n')
  fs.mkdirSync(path.join(dir, 'outside'))
  return path.join(dir, 'ws')
}

const refused = (ws: string, candidate: string) => {
  try {
    confineToWorkspace(ws, candidate)
  } catch (error) {
    expect(error).toBeInstanceOf(ContextPathError)
    return (error as Error).message
  }
  throw new Error(`not refused: ${candidate}`)
}

describe('confineToWorkspace', () => {
  it('gives the real path of a folder or file inside, absolute or relative', () => {
    const ws = workspace()
    expect(confineToWorkspace(ws, '')).toBe(ws)
    expect(confineToWorkspace(ws, 'src/deep')).toBe(path.join(ws, 'src/deep'))
    expect(confineToWorkspace(ws, path.join(ws, 'src', 'a.ts'))).toBe(
      path.join(ws, 'src', 'a.ts')
    )
    // '..' that stays inside is resolved by name, never through the kernel.
    expect(confineToWorkspace(ws, 'src/deep/../a.ts')).toBe(
      path.join(ws, 'src', 'a.ts')
    )
  })

  it('a workspace reached through a link of the runner is fine', () => {
    const ws = workspace()
    const alias = path.join(path.dirname(ws), 'alias')
    fs.symlinkSync(ws, alias)
    expect(confineToWorkspace(alias, 'src')).toBe(path.join(ws, 'src'))
    expect(confineToWorkspace(alias, path.join(alias, 'src'))).toBe(
      path.join(ws, 'src')
    )
  })

  it('refuses links anywhere, escapes, files as folders and other kinds, naming the input', () => {
    const ws = workspace()
    fs.symlinkSync('/', path.join(ws, 'root'))
    fs.symlinkSync('src', path.join(ws, 'inside'))
    fs.symlinkSync('../outside', path.join(ws, 'out'))
    fs.symlinkSync('/nonexistent', path.join(ws, 'dangling'))
    expect(refused(ws, 'root')).toMatch(
      /'context-path'.*'root' is a symbolic link \(to '\/'\)/
    )
    expect(refused(ws, 'inside')).toMatch(/'inside' is a symbolic link/)
    expect(refused(ws, 'out/x')).toMatch(/'out' is a symbolic link/)
    expect(refused(ws, 'dangling')).toMatch(/symbolic link/)
    expect(refused(ws, '../outside')).toMatch(/outside the workspace/)
    expect(refused(ws, 'src/../../outside')).toMatch(/outside the workspace/)
    expect(refused(ws, '/etc')).toMatch(/outside the workspace/)
    expect(refused(ws, 'src/a.ts/x')).toMatch(/'src\/a.ts' is a file/)
    expect(refused(ws, 'nope')).toMatch(/does not exist/)
  })

  it('recheckConfined: a folder swapped for a link after the check is refused', () => {
    const ws = workspace()
    const confined = confineToWorkspace(ws, 'src/deep')
    recheckConfined(ws, confined)
    fs.renameSync(path.join(ws, 'src'), path.join(ws, 'src-old'))
    fs.symlinkSync('src-old', path.join(ws, 'src'))
    expect(() => recheckConfined(ws, confined)).toThrow(ContextPathError)
  })
})
