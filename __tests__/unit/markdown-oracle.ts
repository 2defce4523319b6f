// What GitHub would make of posted markdown, for the tests: read by an
// independent CommonMark + GFM parser (micromark through mdast), never by
// src/safety/markdown-scan.ts, so the tests do not trust the code they check.
// GitHub links mentions and issue references in the rendered text (escapes
// and character references already resolved), outside code and links.
import type { Nodes, Parents, Root, RootContent } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfmFootnote } from 'micromark-extension-gfm-footnote'
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough'
import { gfmTable } from 'micromark-extension-gfm-table'
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item'

/**
 * GFM without micromark's autolink-literal syntax: GitHub (cmark-gfm) finds
 * bare URLs in text after code spans are parsed, which mdast-util-gfm's
 * transform does too; micromark's syntax would let a URL run on through a
 * code span (`https://a.io` + a code span read as one link).
 */
function parse(markdown: string): Root {
  // Tests ask several questions of one text: parsed once (a 65 KB comment
  // takes the parser about 0.1 s). The tree is only read.
  if (last?.markdown !== markdown)
    last = { markdown, tree: parseAnew(markdown) }
  return last.tree
}
let last: { markdown: string; tree: Root } | undefined

function parseAnew(markdown: string): Root {
  const gfm = gfmFromMarkdown()
  const tree = fromMarkdown(markdown, {
    extensions: [
      gfmFootnote(),
      gfmStrikethrough(),
      gfmTable(),
      gfmTaskListItem()
    ],
    mdastExtensions: gfm.map((extension) => ({
      ...extension,
      transforms: []
    }))
  })
  // GFM's transforms (the bare-URL links) walk the whole tree recursively,
  // which a few thousand nested `- > ` overflow: each is run on one block
  // of phrasing at a time instead, the only nodes whose text it links.
  const transforms = gfm.flatMap((extension) => extension.transforms ?? [])
  walk(tree, (node) => {
    if (!PHRASING_BLOCKS.has(node.type)) return
    for (const transform of transforms)
      transform({ type: 'root', children: [node as RootContent] })
  })
  return tree
}

/** The blocks whose children are phrasing (text, links, code spans...). */
const PHRASING_BLOCKS: ReadonlySet<string> = new Set([
  'paragraph',
  'heading',
  'tableCell'
])

/**
 * Every node in document order, with whether raw `<code>` encloses it.
 * Iterative: an answer of a few thousand `> ` nests block quotes deeper
 * than the call stack goes.
 */
function walk(
  tree: Root,
  visit: (node: Nodes, inHtmlCode: boolean) => void
): void {
  type Frame = {
    children: RootContent[]
    next: number
    enclosed: boolean
    inHtmlCode: boolean
  }
  const frameOf = (parent: Parents, enclosed: boolean): Frame => ({
    children: parent.children as RootContent[],
    next: 0,
    enclosed,
    inHtmlCode: enclosed
  })
  const stack: Frame[] = [frameOf(tree, false)]
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame
    const child = frame.children[frame.next++]
    if (!child) {
      stack.pop()
      continue
    }
    if (child.type === 'html') {
      if (/^<code\b/i.test(child.value)) frame.inHtmlCode = true
      else if (/^<\/code\s*>/i.test(child.value))
        frame.inHtmlCode = frame.enclosed
    }
    visit(child, frame.inHtmlCode)
    if ('children' in child) stack.push(frameOf(child, frame.inHtmlCode))
  }
}

/** The text GitHub shows as prose: outside code, links and raw `<code>`. */
function proseTexts(markdown: string): string[] {
  const texts: string[] = []
  const inLink = new Set<Nodes>()
  walk(parse(markdown), (node, inHtmlCode) => {
    // GitHub links nothing inside a link or code.
    if (inLink.has(node) || inHtmlCode) return
    if (node.type === 'link' || node.type === 'linkReference')
      markDescendants(node, inLink)
    else if (node.type === 'text') texts.push(node.value)
  })
  return texts
}

function markDescendants(node: Nodes, marked: Set<Nodes>): void {
  const pending: Nodes[] = [node]
  for (let n = pending.pop(); n; n = pending.pop()) {
    if (!('children' in n)) continue
    for (const child of n.children as Nodes[]) {
      marked.add(child)
      pending.push(child)
    }
  }
}

/** A paragraph put after the text to see whether the text swallows it. */
const FOLLOWER = 'FOLLOWING-PARAGRAPH-7c1e'

/**
 * The fence still open at the end, if any: a fenced code block that runs to
 * the end of the text without a closing fence swallows all that follows.
 * Asked of what follows itself (a paragraph after one line break and after a
 * blank line): a fence inside a block quote or a list item ends with its
 * container, so `> ~~~` swallows nothing; one at the top level does.
 */
export function unclosedFence(markdown: string): string | undefined {
  for (const gap of ['\n', '\n\n']) {
    const text = `${markdown}${gap}${FOLLOWER}`
    let open: string | undefined
    walk(parse(text), (node) => {
      if (node.type !== 'code' || !node.position) return
      if (!node.value.includes(FOLLOWER)) return
      const source = text.slice(node.position.start.offset)
      open = /^ {0,3}(`{3,}|~{3,})/.exec(source)?.[1] ?? source.slice(0, 3)
    })
    if (open) return open
  }
  return undefined
}

/** `@name` that GitHub would link. */
export function liveMentions(markdown: string): string[] {
  const found: string[] = []
  for (const text of proseTexts(markdown))
    for (const m of text.matchAll(/(?:^|[^A-Za-z0-9])(@[A-Za-z0-9][\w-]*)/g))
      found.push(m[1] as string)
  return found
}

const ISSUE_URL =
  /github\.com\/[\w.-]+\/[\w.-]+\/(?:issues|pulls?|discussions)\/\d+/gi

/** Issue references and issue URLs GitHub would link (and so backlink). */
export function liveReferences(markdown: string): string[] {
  const found: string[] = []
  for (const text of proseTexts(markdown)) {
    for (const m of text.matchAll(
      /(?:^|[^A-Za-z0-9_])((?:[\w.-]+\/[\w.-]+)?#\d+|GH-\d+)/gi
    ))
      found.push(m[1] as string)
    for (const m of text.matchAll(ISSUE_URL)) found.push(m[0])
  }
  // A link's target backlinks too, whatever its text.
  walk(parse(markdown), (node) => {
    if (node.type === 'link' || node.type === 'definition')
      for (const m of node.url.matchAll(ISSUE_URL)) found.push(m[0])
  })
  return found
}

/**
 * Markdown links, images, reference links, definitions and footnotes
 * written with brackets (a bare URL GitHub links by itself is no bracket).
 */
export function liveBrackets(markdown: string): string[] {
  const found: string[] = []
  walk(parse(markdown), (node) => {
    if (
      !(
        [
          'link',
          'image',
          'linkReference',
          'imageReference',
          'definition',
          'footnoteReference',
          'footnoteDefinition'
        ] as string[]
      ).includes(node.type) ||
      !node.position
    )
      return
    const source = markdown.slice(
      node.position.start.offset,
      node.position.end.offset
    )
    if (/^!?\[/.test(source)) found.push(source.slice(0, 40))
  })
  return found
}

/** Raw HTML GitHub would render (a line break `<br>` excepted). */
export function liveHtml(markdown: string): string[] {
  const found: string[] = []
  walk(parse(markdown), (node) => {
    if (node.type === 'html' && !/^<br\s*\/?>$/i.test(node.value.trim()))
      found.push(node.value.slice(0, 40))
  })
  return found
}

/** Opened minus closed `<details>` in raw HTML; -1 if a close comes first. */
export function detailsBalance(markdown: string): number {
  let open = 0
  let broken = false
  walk(parse(markdown), (node) => {
    if (node.type !== 'html' || broken) return
    for (const m of node.value.matchAll(/<(\/?)details(?=[\s>/]|$)/gi)) {
      if (!m[1]) open++
      else if (open === 0) broken = true
      else open--
    }
  })
  return broken ? -1 : open
}
