// What a team adopting the action and the Marketplace read: the listing,
// the license and notices, the version and changelog, and the `uses:` lines
// of the README, examples and docs (docs/releasing.md says how they move).
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parse } from 'yaml'
import {
  notices,
  bundledPackages,
  SEPARATOR
} from '../../scripts/third-party-notices.mjs'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8')
const pkg = JSON.parse(read('package.json')) as {
  version: string
  license: string
  dependencies: Record<string, string>
}
const major = `v${pkg.version.split('.')[0]}`

/** Every file a user reads or copies a `uses:` line from. */
function userFacingFiles(): string[] {
  const examples = fs
    .readdirSync(path.join(ROOT, 'examples'))
    .map((f) => path.join('examples', f))
  // Markdown pages only: docs/ also holds the screenshots' folder.
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f))
  return ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', ...examples, ...docs]
}

describe('the Marketplace listing', () => {
  const action = parse(read('action.yml')) as {
    name: string
    description: string
    branding: { icon: string; color: string }
  }
  it('has a description under 125 characters, on one line', () => {
    expect(action.description.length).toBeLessThan(125)
    expect(action.description).not.toContain('\n')
  })
  it('has a short name and branding', () => {
    expect(action.name.length).toBeLessThanOrEqual(40)
    expect(action.branding.icon).toBeTruthy()
    expect(action.branding.color).toBeTruthy()
  })
})

describe('license and notices', () => {
  it('LICENSE is the MIT license package.json names', () => {
    expect(pkg.license).toBe('MIT')
    expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /)
  })

  it.each(['dist/licenses.txt', 'dist/fs-server/licenses.txt'])(
    '%s names every bundled package with a license text',
    (file) => {
      const text = read(file)
      const entries = text.split(SEPARATOR)
      for (const entry of entries) {
        const [id, license, blank, ...body] = entry.split('\n')
        expect({ id, license: !!license, blank }).toEqual({
          id: expect.stringMatching(/^(@[^/]+\/)?[^@/]+@\d/),
          license: true,
          blank: ''
        })
        expect(body.join('\n').trim().length).toBeGreaterThan(100)
      }
    }
  )

  it("the action's own dependencies are among them, ES modules included (ncc's own list leaves those out)", () => {
    const ids = read('dist/licenses.txt')
      .split(SEPARATOR)
      .map((e) => e.split('\n')[0] ?? '')
    for (const name of Object.keys(pkg.dependencies)) {
      expect(ids.some((id) => id.startsWith(`${name}@`))).toBe(true)
    }
    const fsIds = read('dist/fs-server/licenses.txt')
      .split(SEPARATOR)
      .map((e) => e.split('\n')[0] ?? '')
    expect(
      fsIds.some((id) =>
        id.startsWith('@modelcontextprotocol/server-filesystem@')
      )
    ).toBe(true)
  })

  it('a package without a license file or stored text is reported, not left out', () => {
    const folder = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.notice-'))
    try {
      fs.writeFileSync(
        path.join(folder, 'package.json'),
        JSON.stringify({ name: 'no-license-anywhere', version: '1.0.0' })
      )
      const stats = {
        modules: [{ name: `./${path.relative(ROOT, folder)}/index.js` }]
      }
      const result = notices(bundledPackages(stats, ROOT))
      expect(result.missing).toEqual(['no-license-anywhere@1.0.0'])
    } finally {
      fs.rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe('version and changelog', () => {
  it("the changelog's newest entry is package.json's version", () => {
    const first = /^## \[?(\d+\.\d+\.\d+[^\] ]*)\]?/m.exec(read('CHANGELOG.md'))
    expect(first?.[1]).toBe(pkg.version)
  })

  it(`every massgen/massgen-action reference names the current major (${major})`, () => {
    const refs = userFacingFiles().flatMap((file) =>
      [...read(file).matchAll(/massgen\/massgen-action@([^\s`'"]+)/g)].map(
        (m) => ({ file, ref: m[1] })
      )
    )
    expect(refs.length).toBeGreaterThan(5)
    expect(refs.filter((r) => r.ref !== major)).toEqual([])
  })
})
