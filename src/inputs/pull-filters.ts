// Which pull requests are reviewed: `skip-drafts`, `skip-bots`,
// `skip-labels` and `max-changed-files` (event/pull-skips.ts applies them).
import { Defaults, Inputs } from '../core/constants.js'
import { showValue } from '../core/text.js'
import { parseFlag } from './boolean-rule.js'
import type { Settings } from '../core/types.js'

type PullFilters = Pick<
  Settings,
  'skipDrafts' | 'skipBots' | 'skipLabels' | 'maxChangedFiles'
>

/** GitHub's limit on label names. */
const LABEL_MAX = 50
const MAX_CHANGED_FILES_LIMIT = 1_000_000

export function readPullFilters(
  raw: (name: string) => string,
  errors: string[]
): PullFilters {
  const flag = (name: string, fallback: boolean): boolean => {
    if (!raw(name).trim()) return fallback
    const value = parseFlag(raw(name))
    if (value !== undefined) return value
    errors.push(
      `Input '${name}': got '${showValue(raw(name))}', expected 'true' or 'false'`
    )
    return fallback
  }
  return {
    skipDrafts: flag(Inputs.SkipDrafts, Defaults.SkipDrafts),
    skipBots: flag(Inputs.SkipBots, Defaults.SkipBots),
    skipLabels: readLabels(raw(Inputs.SkipLabels), errors),
    maxChangedFiles: readMaxFiles(raw(Inputs.MaxChangedFiles), errors)
  }
}

/** Label names, by comma or line; compared without case, as GitHub does. */
function readLabels(text: string, errors: string[]): string[] {
  const names = text
    .split(/[,\n]/)
    .map((n) => n.trim())
    .filter(Boolean)
  const bad = names.filter(
    (n) => n.length > LABEL_MAX || /[\p{Cc}\p{Cf}]/u.test(n)
  )
  if (bad.length)
    errors.push(
      `Input '${Inputs.SkipLabels}': got '${showValue(bad[0] ?? '')}', expected label ` +
        `names of at most ${LABEL_MAX} characters, separated by commas or lines ` +
        "(e.g. 'wip, no-review')"
    )
  return [...new Set(names.map((n) => n.toLowerCase()))]
}

function readMaxFiles(text: string, errors: string[]): number | undefined {
  const value = text.trim()
  if (!value) return undefined
  const n = /^\d{1,7}$/.test(value) ? Number(value) : NaN
  if (n >= 1 && n <= MAX_CHANGED_FILES_LIMIT) return n
  errors.push(
    `Input '${Inputs.MaxChangedFiles}': got '${showValue(text)}', expected a whole ` +
      `number of files from 1 to ${MAX_CHANGED_FILES_LIMIT}, or empty for no limit`
  )
  return undefined
}
