// The report's lines on the pull request as a whole: files GitHub did not
// name, a diff rebuilt from the files list, the steering-files check and a
// summary given instead of a review. Fixed text; the file names (the
// author's) go into a code block nothing inside can close or ping from.
import { STEERING_FILES_SHOWN } from '../context/steering-files.js'
import { Inputs } from '../core/constants.js'
import type { PullFacts } from '../core/types.js'
import { codeBlock } from '../safety/markdown-parts.js'
import { formatCount } from './render-parts.js'

export function pullFactsSection(
  facts: PullFacts | undefined,
  secrets: readonly string[]
): string {
  if (!facts) return ''
  const lines: string[] = []
  if (facts.listedFiles < facts.changedFiles)
    lines.push(
      `⚠️ **Incomplete:** GitHub named ${formatCount(facts.listedFiles)} of the ` +
        `${formatCount(facts.changedFiles)} changed files (its files list stops at 3,000); ` +
        'the agents did not see the rest.'
    )
  if (facts.diffRebuilt)
    lines.push(
      'GitHub would not render the diff (too large); it was rebuilt from the ' +
        'per-file patches of the files list.'
    )
  if (facts.summaryOnly)
    lines.push(
      `**Summary only:** ${formatCount(facts.changedFiles)} changed files is more than ` +
        `\`${Inputs.MaxChangedFiles}\` (${formatCount(facts.summaryOnly.max)}); no review was asked for.`
    )
  const steering = facts.steering
  if (steering.state === 'unknown')
    lines.push(
      '⚠️ **Steering files: cannot be ruled out.** Not every changed file is named, so ' +
        "changes to workflows, actions, code owners, instructions files or this run's " +
        'setup may be among the rest: treated as changed. Review the whole pull request ' +
        'before merging.'
    )
  else if (steering.state === 'changed')
    lines.push(
      '⚠️ **Steering files changed:** this pull request changes files that steer CI or ' +
        'reviews once merged (workflows, actions, code owners, instructions files, ' +
        "this run's setup)."
    )
  if (steering.state !== 'none' && steering.files.length) {
    const shown = steering.files.slice(0, STEERING_FILES_SHOWN)
    const more = steering.files.length - shown.length
    const names = shown.map((f) => f.replace(/[\r\n\t]+/g, ' '))
    if (more > 0) names.push(`… and ${more} more`)
    lines.push(codeBlock(names.join('\n'), secrets, 4000))
  }
  return lines.join('\n\n')
}
