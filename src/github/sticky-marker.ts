// The hidden first line that names the sticky comment of one comment-tag.
// Pure, so the renderer can keep every generated text from carrying it.

const MARKER_NAME = 'massgen-action:sticky'
/**
 * The same name with its colon swapped for U+2236 (RATIO), which looks the
 * same: the same length, so a text at its size limit stays within it.
 */
const DEFUSED_NAME = 'massgen-action\u2236sticky'

/** The hidden marker that names the sticky comment of one comment-tag. */
export function stickyMarker(tag: string): string {
  // Only characters that cannot end the HTML comment or the tag itself.
  const safe = tag.replace(/[^A-Za-z0-9._-]/g, '_').replace(/-{2,}/g, '-')
  return `<!-- ${MARKER_NAME} tag=${safe} -->`
}

/**
 * A comment is the sticky comment of `tag` only when the marker is its whole
 * first line: a marker quoted further down (an answer showing another tag's
 * marker in a code block) names nothing.
 */
export function startsWithMarker(body: string, tag: string): boolean {
  const end = body.indexOf('\n')
  const first = end < 0 ? body : body.slice(0, end)
  return first.trimEnd() === stickyMarker(tag)
}

/**
 * Breaks every marker in generated text (answers, questions, errors), so no
 * text the action posts can carry a marker but its own first line, even for
 * an older version that looked for the marker anywhere in a body.
 */
export function defuseStickyMarkers(text: string): string {
  return text.includes(MARKER_NAME)
    ? text.split(MARKER_NAME).join(DEFUSED_NAME)
    : text
}
