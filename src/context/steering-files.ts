// Does the pull request change files that steer CI or reviews once merged:
// workflows and actions, code owners, the instructions files agents follow,
// the base branch's .gitattributes marks, and the files this run's setup
// came from? Such a change deserves a reviewer's eye whatever the agents
// say, so the report names it. The check needs the whole list of changed
// files: when GitHub's files list stops at its 3,000 files, the rest are
// unknown, and the check fails closed (treated as changed, said so).
// Pure: file names are the pull request author's text.
import { filesIncomplete, type PullRequestContext } from '../github/pull.js'
import { globMatcher } from '../inputs/globs.js'
import { INSTRUCTION_FILES } from './project-instructions.js'
import type { SteeringCheck } from '../core/types.js'

/** Most names shown: the rest are counted. */
export const STEERING_FILES_SHOWN = 20

const STEERING_GLOBS = [
  '.github/workflows/',
  '.github/actions/',
  'action.yml',
  'action.yaml',
  'CODEOWNERS',
  '.gitattributes',
  '.github/copilot-instructions.md',
  '.github/instructions/',
  ...INSTRUCTION_FILES
]

/** Case-folded on both sides: a checkout on a case-insensitive disk reads `Agents.md` too. */
function steeringMatcher(
  setupFiles: readonly string[]
): (file: string) => boolean {
  const tests = [...STEERING_GLOBS, ...setupFiles.map((f) => `/${f}`)].map(
    (g) => globMatcher(g.toLowerCase())
  )
  return (file) => {
    const folded = file.toLowerCase()
    return tests.some((t) => t(folded))
  }
}

export type { SteeringCheck }

export function checkSteeringFiles(
  pr: Pick<PullRequestContext, 'files' | 'changedFiles'>,
  setupFiles: readonly string[]
): SteeringCheck {
  const steers = steeringMatcher(setupFiles)
  // A rename moves a workflow or instructions file away: its old name counts.
  const names = pr.files.flatMap((f) =>
    f.previousFilename ? [f.filename, f.previousFilename] : [f.filename]
  )
  const files = [...new Set(names.filter(steers))]
  if (filesIncomplete(pr))
    return {
      state: 'unknown',
      files,
      listed: pr.files.length,
      changed: pr.changedFiles ?? pr.files.length
    }
  return files.length ? { state: 'changed', files } : { state: 'none' }
}

/**
 * The check as the agents read it in pull-request.md: fixed text but the
 * names, which `show` makes one line each.
 */
export function steeringLines(
  check: SteeringCheck,
  show: (name: string) => string
): string[] {
  if (check.state === 'none') return []
  const shown = check.files.slice(0, STEERING_FILES_SHOWN)
  const more = check.files.length - shown.length
  const names = shown.map((f) => `  - ${show(f)}`)
  if (more > 0) names.push(`  - and ${more} more`)
  if (check.state === 'changed')
    return [
      '- it changes files that steer CI or reviews once merged (workflows, actions, ' +
        "code owners, instructions files, .gitattributes, this run's setup): look at them first",
      ...names
    ]
  return [
    `- it may change files that steer CI or reviews: GitHub named only ${check.listed} ` +
      `of ${check.changed} changed files, so a workflow, instructions or setup change ` +
      'can be among the unnamed ones; treat it as if it were',
    ...names
  ]
}
