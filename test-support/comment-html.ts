// A posted comment as GitHub shows it, near enough to look at: cmark-gfm (the
// renderer GitHub forked, Debian's `cmark-gfm`) with GitHub's extensions, in
// a page styled by GitHub's own stylesheet (npm `github-markdown-css`), one
// comment 1000 pixels wide. For scripts/screenshots.ts and its test.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ROOT } from './run-action.ts'

/** The width the screenshots are taken at. */
export const PAGE_WIDTH = 1000

/** The comment's markdown as HTML, by cmark-gfm with GitHub's extensions. */
export function markdownHtml(markdown: string): string {
  return execFileSync(
    'cmark-gfm',
    [
      // The comment's <details>, <summary> and <sub> are raw HTML GitHub keeps;
      // tagfilter drops what GitHub drops (<script>, <iframe>, ...).
      '--unsafe',
      ...[
        'table',
        'strikethrough',
        'autolink',
        'tagfilter',
        'tasklist'
      ].flatMap((e) => ['-e', e])
    ],
    { input: markdown, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }
  )
}

/** A page holding the comment, styled as on github.com (light theme). */
export function commentPage(markdown: string, title: string): string {
  const css = fs.readFileSync(
    path.join(
      ROOT,
      'node_modules',
      'github-markdown-css',
      'github-markdown-light.css'
    ),
    'utf8'
  )
  const escapedTitle = title.replace(/[<&]/g, (c) =>
    c === '<' ? '&lt;' : '&amp;'
  )
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<title>${escapedTitle}</title>`,
    `<style>${css}\nbody{margin:0;background:#fff}` +
      `.markdown-body{box-sizing:border-box;width:${PAGE_WIDTH}px;padding:16px 24px}</style>`,
    '</head><body><article class="markdown-body">',
    markdownHtml(markdown),
    '</article></body></html>'
  ].join('\n')
}
