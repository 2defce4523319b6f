// What the report and the agents are told of the pull request as a whole:
// how many files GitHub counts and named, whether the diff was rebuilt, the
// steering-files check, and whether `max-changed-files` asks for a summary.
import { checkSteeringFiles } from './steering-files.js'
import { Inputs } from '../core/constants.js'
import type { PullRequestContext } from '../github/pull.js'
import type { PullFacts, Settings } from '../core/types.js'

export function pullFactsOf(
  pr: PullRequestContext,
  settings: Pick<Settings, 'setupFiles' | 'maxChangedFiles'>
): PullFacts {
  const changedFiles = Math.max(pr.changedFiles ?? 0, pr.files.length)
  const max = settings.maxChangedFiles
  return {
    changedFiles,
    listedFiles: pr.files.length,
    diffRebuilt: pr.diffRebuilt === true,
    // On every file GitHub named, before include/exclude narrow them.
    steering: checkSteeringFiles(pr, settings.setupFiles),
    ...(max !== undefined && changedFiles > max ? { summaryOnly: { max } } : {})
  }
}

/** The question's note for a pull request over `max-changed-files` (fixed text). */
export function summaryOnlyNote(facts: PullFacts): string {
  return (
    `\n\n---\nThis pull request changes ${facts.changedFiles} files, more than ` +
    `'${Inputs.MaxChangedFiles}' (${facts.summaryOnly?.max ?? 0}) allows for a review. ` +
    'Give only a short summary of what it changes, by area, and which parts a person ' +
    'should review first. Raise no findings.'
  )
}
