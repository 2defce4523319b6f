import { describe, expect, it } from '@jest/globals'
import {
  grantSpecs,
  isTouched,
  keeperUid,
  parseImageUser,
  parseRecord,
  parseUid,
  restorableDump,
  splitAclDump,
  treeArgs,
  type PathProbe
} from '../../src/prepare/container-write-access.js'
import { unescapeC } from '../../src/core/text.js'

describe("the image's user", () => {
  it.each([
    ['', { uid: 0 }],
    ['\n', { uid: 0 }],
    ['root', { uid: 0 }],
    ['0', { uid: 0 }],
    ['1000', { uid: 1000 }],
    ['1000:1000', { uid: 1000 }],
    ['massgen', { name: 'massgen' }],
    ['massgen:staff\n', { name: 'massgen' }]
  ])('Config.User %j is %j', (user, expected) => {
    expect(parseImageUser(user)).toEqual(expected)
  })

  it('only a plain decimal uid is a uid', () => {
    expect(parseUid('1000\n')).toBe(1000)
    for (const bad of ['', '-1', '1e3', '0x10', '10 0', '99999999999', 'root'])
      expect(parseUid(bad)).toBeUndefined()
  })
})

describe('ACL entries', () => {
  it("the image's uid gets rwX; folders pass it on, with the keeper's", () => {
    expect(grantSpecs(1000, 1001)).toEqual({
      files: 'u:1000:rwX',
      dirs: 'u:1000:rwX,d:u:1000:rwX,d:u:1001:rwX'
    })
  })

  it('no entry for a keeper that is root or the image user itself', () => {
    expect(grantSpecs(1000, 0).dirs).toBe('u:1000:rwX,d:u:1000:rwX')
    expect(grantSpecs(1000, 1000).dirs).toBe('u:1000:rwX,d:u:1000:rwX')
  })

  it("the keeper is the action's user, or the checkout's owner when the action is root", () => {
    expect(keeperUid(1001, 1001)).toBe(1001)
    expect(keeperUid(1001, 0)).toBe(1001)
    expect(keeperUid(0, 1001)).toBe(1001)
    expect(keeperUid(0, 0)).toBe(0)
  })
})

describe('which files a grant touches', () => {
  const commands = { dirs: ['setfacl', '-b'], files: ['setfacl', '-c'] }

  it("as root: every folder and regular file but the image user's", () => {
    expect(treeArgs('/repo', 1000, 0, commands)).toEqual([
      '/repo',
      '!',
      '-uid',
      '1000',
      '(',
      '-type',
      'd',
      '-exec',
      'setfacl',
      '-b',
      '{}',
      '+',
      '-o',
      '-type',
      'f',
      '-exec',
      'setfacl',
      '-c',
      '{}',
      '+',
      ')'
    ])
  })

  it("as another user: only that user's files", () => {
    expect(treeArgs('/repo', 1000, 1001, commands).slice(0, 7)).toEqual([
      '/repo',
      '!',
      '-uid',
      '1000',
      '-uid',
      '1001',
      '('
    ])
  })

  it('a relative root is refused (find would read it as an option)', () => {
    expect(() => treeArgs('-delete', 1000, 0, commands)).toThrow(/absolute/)
  })

  it('isTouched is the same rule for one owner', () => {
    expect(isTouched(1001, 1000, 0)).toBe(true)
    expect(isTouched(0, 1000, 0)).toBe(true)
    expect(isTouched(1000, 1000, 0)).toBe(false)
    expect(isTouched(1001, 1000, 1001)).toBe(true)
    expect(isTouched(0, 1000, 1001)).toBe(false)
    expect(isTouched(1000, 1000, 1001)).toBe(false)
  })
})

const DUMP = [
  '# file: /repo/notes\\040and\\012more.txt',
  '# owner: 1001',
  '# group: 1001',
  'user::rw-',
  'user:4242:r--',
  'group::r--',
  'mask::r--',
  'other::r--',
  '',
  '# file: /repo/shared',
  '# owner: 1001',
  '# group: 1001',
  'user::rwx',
  'group::r-x',
  'other::r-x',
  'default:user::rwx',
  'default:user:4242:rwx',
  'default:group::r-x',
  'default:mask::rwx',
  'default:other::r-x',
  '',
  '# file: /repo/root-owned',
  '# owner: 0',
  '# group: 0',
  'user::rw-',
  'user:4242:r--',
  'group::r--',
  'mask::r--',
  'other::r--',
  ''
].join('\n')

describe('the dump of the ACLs that existed before', () => {
  it('is split into blocks with their owner and entries; paths are unescaped', () => {
    const blocks = splitAclDump(DUMP)
    expect(blocks.map((b) => b.path)).toEqual([
      '/repo/notes and\nmore.txt',
      '/repo/shared',
      '/repo/root-owned'
    ])
    expect(blocks[0]?.rawPath).toBe('/repo/notes\\040and\\012more.txt')
    expect(blocks.map((b) => b.owner)).toEqual([1001, 1001, 0])
    expect(blocks[1]?.lines).toContain('default:user:4242:rwx')
    expect(blocks[0]?.lines).not.toContain('# group: 1001')
  })

  it('octal escapes become bytes, so UTF-8 names survive', () => {
    expect(unescapeC('/r/\\303\\251t\\303\\251')).toBe('/r/été')
    expect(unescapeC('/r/été\\134x')).toBe('/r/été\\x')
    expect(unescapeC('/r/a\\12')).toBe('/r/a\\12')
  })

  const unchanged = (p: string): PathProbe => ({
    uid: p.endsWith('root-owned') ? 0 : 1001,
    kind: p.endsWith('shared') ? 'dir' : 'file',
    realPath: p
  })
  const asRoot = (owner: number) => isTouched(owner, 1000, 0)

  it('restores every unchanged file, without owner lines (a restore never chowns)', () => {
    const kept = restorableDump(DUMP, unchanged, asRoot)
    expect(splitAclDump(kept).map((b) => b.rawPath)).toEqual([
      '/repo/notes\\040and\\012more.txt',
      '/repo/shared',
      '/repo/root-owned'
    ])
    expect(kept).not.toMatch(/# owner|# group/)
    expect(kept).toContain('default:user:4242:rwx')
  })

  it('attack: the agent replaced a file or a folder with a link to the runner’s files, so a restore would follow it — fails', () => {
    const linked = (p: string): PathProbe | undefined =>
      p === '/repo/shared'
        ? { uid: 1001, kind: 'dir', realPath: '/home/runner/.ssh' }
        : p.startsWith('/repo/notes')
          ? { uid: 1001, kind: 'file', realPath: '/home/runner/token' }
          : unchanged(p)
    expect(
      splitAclDump(restorableDump(DUMP, linked, asRoot)).map((b) => b.path)
    ).toEqual(['/repo/root-owned'])
  })

  it('a file deleted, replaced by one of another owner, or no longer a file or folder, is left alone', () => {
    const changed = (p: string): PathProbe | undefined =>
      p === '/repo/shared'
        ? undefined
        : p.startsWith('/repo/notes')
          ? { uid: 1000, kind: 'file', realPath: p }
          : { uid: 0, kind: 'other', realPath: p }
    expect(restorableDump(DUMP, changed, asRoot)).toBe('')
  })

  it('a folder that became a file does not get default entries', () => {
    const flattened = (p: string): PathProbe => ({
      ...unchanged(p),
      kind: 'file'
    })
    expect(
      splitAclDump(restorableDump(DUMP, flattened, asRoot)).map((b) => b.path)
    ).not.toContain('/repo/shared')
  })

  it('as a non-root actor, only its own files are restored (the others were never cleared)', () => {
    const kept = restorableDump(DUMP, unchanged, (owner) =>
      isTouched(owner, 1000, 1001)
    )
    expect(splitAclDump(kept).map((b) => b.path)).not.toContain(
      '/repo/root-owned'
    )
  })
})

describe('the record the post step reads', () => {
  const dir = '/tmp/run'
  const good = { uid: 1000, actor: 0, roots: ['/repo'] }

  it('round-trips', () => {
    expect(parseRecord(JSON.stringify(good), dir)).toEqual(good)
    const withDump = { ...good, dump: '/tmp/run/container-write-access.acl' }
    expect(parseRecord(JSON.stringify(withDump), dir)).toEqual(withDump)
  })

  it.each([
    ['not JSON', '{'],
    ['no uid', JSON.stringify({ ...good, uid: undefined })],
    ['uid 0', JSON.stringify({ ...good, uid: 0 })],
    ['a negative actor', JSON.stringify({ ...good, actor: -1 })],
    ['a relative root', JSON.stringify({ ...good, roots: ['repo'] })],
    ['a root that is no string', JSON.stringify({ ...good, roots: [1] })],
    [
      'a dump elsewhere',
      JSON.stringify({ ...good, dump: '/home/runner/.bashrc' })
    ]
  ])('is refused with %s', (_, text) => {
    expect(parseRecord(text, dir)).toBeUndefined()
  })
})
