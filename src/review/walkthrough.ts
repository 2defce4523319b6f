// The walkthrough: what the pull request changes, a line a file, from the
// answer the agents voted for (review/post.ts answerFor). Hostile LLM text:
// the last `massgen-walkthrough` block, a linear line scan; only lines that
// name a file the pull request changes, one per file, capped in count and
// length. Escaping is the renderer's (report/render.ts), where it is placed.
import { answerLines, walkthroughFences } from '../core/findings-fence.js'
import { stripInvisible } from '../safety/visible-text.js'
import type { Walkthrough } from '../core/review.js'
import { normalisePath } from './findings.js'

/** Lines shown at most: a walkthrough is read at a glance. */
export const MAX_WALKTHROUGH_FILES = 20
/** Characters of one line's text kept (the renderer clips it again). */
const MAX_LINE_CHARS = 300
/** Characters of a path read: no changed file's name is longer. */
const MAX_PATH_CHARS = 1000

/** `- \`path\`: text`, `path: text`, `**path** — text`. */
function splitLine(line: string): { path: string; text: string } | undefined {
  const bare = line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
  const at = bare.search(/:\s|\s[—–-]\s/)
  if (at <= 0 || at > MAX_PATH_CHARS) return undefined
  const path = bare
    .slice(0, at)
    .trim()
    .replace(/^(\*\*|`)(.*)\1$/, '$2')
  const text = bare
    .slice(at, at + 4 * MAX_LINE_CHARS)
    .replace(/^(?::|\s[—–-])\s*/, '')
    .trim()
  return text ? { path, text } : undefined
}

function oneLine(text: string): string {
  const flat = stripInvisible(text).replace(/\s+/g, ' ').trim()
  const chars = [...flat]
  return chars.length <= MAX_LINE_CHARS
    ? flat
    : chars.slice(0, MAX_LINE_CHARS - 1).join('') + '…'
}

/**
 * The walkthrough of `agent`'s answer, or undefined when it has none. Lines
 * on files the pull request does not change are left out (counted).
 */
export function walkthroughOf(
  agent: string,
  answer: string,
  changedFiles: readonly string[]
): Walkthrough | undefined {
  const block = walkthroughFences(answerLines(answer)).at(-1)
  if (!block) return undefined
  const changed = new Set(changedFiles)
  const files: Walkthrough['files'] = []
  const seen = new Set<string>()
  let left = 0
  for (const line of block.body) {
    if (!line.trim()) continue
    const parts = splitLine(line)
    const file = parts && normalisePath(parts.path, changed)
    if (!parts || !file || seen.has(file)) {
      left++
      continue
    }
    if (files.length >= MAX_WALKTHROUGH_FILES) {
      left++
      continue
    }
    seen.add(file)
    files.push({ file, text: oneLine(parts.text) })
  }
  if (!files.length) return undefined
  return { agent, files, ...(left ? { left } : {}) }
}
