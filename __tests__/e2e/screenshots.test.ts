// The HTML step of `npm run screenshots` (scripts/screenshots.ts), without
// the browser CI does not have: the comments of four runs of the bundled
// action (test-support/comment-gallery.ts) rendered by cmark-gfm in GitHub's
// stylesheet (test-support/comment-html.ts). The first lines of each page
// are the verdict (or the failure), then, for a review, the walkthrough.
import { beforeAll, describe, expect, it, jest } from '@jest/globals'
import {
  galleryComments,
  type GalleryComment
} from '../../test-support/comment-gallery.js'
import { commentPage } from '../../test-support/comment-html.js'

jest.setTimeout(300_000)

let pages: Map<string, string>
let comments: GalleryComment[]
beforeAll(async () => {
  comments = await galleryComments()
  pages = new Map(
    comments.map((c) => [c.name, commentPage(c.markdown, c.title)])
  )
})

/** The rendered comment's text lines, tags left out, from the article on. */
function firstLines(html: string, n: number): string[] {
  const article = html.slice(html.indexOf('<article'))
  return article
    .replace(/<[^>]+>/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, n)
}

describe('the screenshots script renders each comment to HTML, verdict first', () => {
  it('four comments, each styled by GitHub stylesheet in a 1000-pixel column', () => {
    expect(comments.map((c) => c.name)).toEqual([
      'blocker-review',
      'clean-review',
      'later-push',
      'failed-run'
    ])
    for (const page of pages.values()) {
      expect(page).toContain('.markdown-body')
      expect(page).toContain('width:1000px')
    }
  })

  it.each([
    [
      'blocker-review',
      /^🔴 MassGen review: 1 blocker \(raised by 3 of 3 models\)/
    ],
    [
      'clean-review',
      /^✅ MassGen review: no blockers or concerns from 3 models/
    ],
    ['later-push', /^🔴 MassGen review: 1 blocker/]
  ])(
    '%s: the verdict heading, then what the change does, file by file',
    (name, verdict) => {
      const html = pages.get(name) ?? ''
      // The sticky comment's hidden marker, then the heading.
      expect(html).toMatch(
        /<article class="markdown-body">\s*(<!--[^>]*-->\s*)?<h3>/
      )
      const lines = firstLines(html, 12)
      expect(lines[0]).toMatch(verdict)
      const walkthrough = lines.findIndex((l) => l === 'What the change does')
      expect(walkthrough).toBeGreaterThan(0)
      expect(walkthrough).toBeLessThan(5)
      expect(lines.slice(walkthrough).join(' ')).toMatch(
        /agent_b .* wrote it in the answer the models voted for/
      )
    }
  )

  it('the later push says what it fixed, what stands and what is new', () => {
    expect(firstLines(pages.get('later-push') ?? '', 4).join(' ')).toContain(
      'Since the last review: this push fixed 1 earlier finding; 1 still stands; 1 new finding counts.'
    )
  })

  it('the failed run says so first, and why', () => {
    const lines = firstLines(pages.get('failed-run') ?? '', 3)
    expect(lines[0]).toBe('❌ MassGen failed')
    expect(lines.join(' ')).toContain('MassGen exited with code 2.')
  })
})
