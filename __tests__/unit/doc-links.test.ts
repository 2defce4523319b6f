// Every relative link of the README, CONTRIBUTING.md, SECURITY.md and docs/
// leads somewhere: the file exists and, with a #anchor into a markdown page,
// that page has the heading GitHub derives the anchor from. The README is a
// front door whose reference lives in docs/; a section that moves or is
// renamed takes its links along.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'

const ROOT = path.resolve('.')
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f))
]

/** The text a reader sees as prose: code fences and inline code left out. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  const headings = text
    .replace(/^```[\s\S]*?^```/gm, '')
    .matchAll(/^#{1,6} +(.+?) *#* *$/gm)
  for (const [, title = ''] of headings) {
    const slug = title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    found.add(n ? `${slug}-${n}` : slug)
  }
  return found
}

function links(file: string): string[] {
  const text = prose(fs.readFileSync(path.join(ROOT, file), 'utf8'))
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target))
}

describe('links between the README and docs/', () => {
  it('lead to files and headings that exist', () => {
    const broken = pages.flatMap((file) =>
      links(file).flatMap((target) => {
        const [where = '', anchor] = target.split('#')
        const to = where ? path.join(path.dirname(file), where) : file
        if (!fs.existsSync(path.join(ROOT, to))) return [`${file}: ${target}`]
        if (anchor === undefined || !to.endsWith('.md')) return []
        const text = fs.readFileSync(path.join(ROOT, to), 'utf8')
        return anchors(text).has(anchor) ? [] : [`${file}: ${target}`]
      })
    )
    expect(broken).toEqual([])
  })

  it('finds the links it checks', () => {
    const counted = pages.flatMap(links)
    expect(counted.filter((t) => t.includes('#')).length).toBeGreaterThan(5)
    expect(counted.length).toBeGreaterThan(30)
  })
})
