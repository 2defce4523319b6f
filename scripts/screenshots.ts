// `npm run screenshots`: what a pull request's author sees, as pictures. Four
// runs of the bundled action (test-support/comment-gallery.ts: a review with
// a blocker, a clean review, a later push's review, a failed run) give their
// comments; each is rendered to HTML by cmark-gfm with GitHub's stylesheet
// (test-support/comment-html.ts) and shot by headless Chromium at 1000
// pixels wide: docs/screenshots/<name>.png, the first screen. Needs the
// Debian packages cmark-gfm and chromium (`apt-get install -y cmark-gfm
// chromium`); not run in CI, which has no browser. Run by Node 24 directly.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { galleryComments } from '../test-support/comment-gallery.ts'
import { commentPage, PAGE_WIDTH } from '../test-support/comment-html.ts'
import { openTempDir, ROOT } from '../test-support/run-action.ts'

/** The first screen: what shows before any scrolling. */
const FIRST_SCREEN_HEIGHT = 800

const say = (line: string) => process.stdout.write(`${line}\n`)
const out = path.join(ROOT, 'docs', 'screenshots')
const pages = openTempDir('screenshots-')
const browser = process.env.CHROMIUM ?? 'chromium'

say(
  'running the bundled action four times (MassGen stand-in, loopback GitHub)...'
)
const comments = await galleryComments()
fs.mkdirSync(out, { recursive: true })
for (const c of comments) {
  const html = path.join(pages, `${c.name}.html`)
  fs.writeFileSync(html, commentPage(c.markdown, c.title))
  const png = path.join(out, `${c.name}.png`)
  execFileSync(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--force-device-scale-factor=1',
      `--window-size=${PAGE_WIDTH},${FIRST_SCREEN_HEIGHT}`,
      `--screenshot=${png}`,
      `file://${html}`
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] }
  )
  say(`${path.relative(ROOT, png)}: ${c.title}`)
}
