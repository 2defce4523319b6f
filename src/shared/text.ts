// Plain-text helpers every stage uses: one name per concept.

/** Cuts text to `max` characters with an ellipsis, never mid-pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text
  let cut = Math.max(0, max - 1)
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut--
  return text.slice(0, cut) + '…'
}

/** A bad input value shown in an error: one line, at most 80 characters. */
export function showValue(value: string): string {
  return clip(value.replace(/\s+/g, ' '), 80)
}

/** The first line of a text (a command's error output), cut to `max`. */
export function firstLine(text: string, max = 300): string {
  return clip(text.trim().split('\n')[0]?.trim() ?? '', max)
}

/** What an unknown thrown value says. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
