// What the main step leaves for the post step (the runner's saved state),
// typed: every value is written and read here and nowhere else, so a name
// and its encoding cannot drift between the two steps.
import * as actions from '@actions/core'
import { State } from './constants.js'

export interface StepState {
  /** Saved first by the main step: the same bundle then runs as the post step. */
  isPost: boolean
  /** The run got past its checks: there is something to clean up. */
  started: boolean
  /** The report is out (or the run was skipped or refused): post does nothing. */
  reported: boolean
  workDir: string | undefined
  /** Where the report goes: the main step's settings, for the post step's report. */
  comment: boolean
  commentTag: string
  jobSummary: boolean
  docker: boolean
  /** Where the report goes; saved only when the main step would comment. */
  issueNumber: number | undefined
  massgenPid: number | undefined
  /** The saved pid's start time and command line, to know it is still MassGen. */
  massgenIdentity: string
  /** The vote round's MassGen started warm before its ballots (vote/warm-ballot.ts). */
  warmMassgenPid: number | undefined
  warmMassgenIdentity: string
  logDir: string | undefined
  /** Credentials taken out of the repository's git config, to put back. */
  gitCredentials: string
  /** A fresh MassGen install for the post step to save (prepare/install/deferred-save.ts), JSON. */
  massgenCacheSave: string
}

type StateStore = Pick<typeof actions, 'saveState' | 'getState'>

const NAMES: Record<keyof StepState, string> = {
  isPost: State.IsPost,
  started: State.Started,
  reported: State.Reported,
  workDir: State.WorkDir,
  comment: State.Comment,
  commentTag: State.CommentTag,
  jobSummary: State.JobSummary,
  docker: State.Docker,
  issueNumber: State.IssueNumber,
  massgenPid: State.MassgenPid,
  massgenIdentity: State.MassgenIdentity,
  warmMassgenPid: State.WarmMassgenPid,
  warmMassgenIdentity: State.WarmMassgenIdentity,
  logDir: State.LogDir,
  gitCredentials: State.GitCredentials,
  massgenCacheSave: State.MassgenCacheSave
}

export function saveStepState<K extends keyof StepState>(
  key: K,
  value: StepState[K],
  store: StateStore = actions
): void {
  store.saveState(NAMES[key], value === undefined ? '' : String(value))
}

export function readStepState(store: StateStore = actions): StepState {
  const text = (key: keyof StepState) => store.getState(NAMES[key])
  const number = (key: keyof StepState) => Number(text(key)) || undefined
  return {
    isPost: text('isPost') === 'true',
    started: text('started') === 'true',
    reported: text('reported') === 'true',
    workDir: text('workDir') || undefined,
    comment: text('comment') === 'true',
    commentTag: text('commentTag'),
    jobSummary: text('jobSummary') === 'true',
    docker: text('docker') === 'true',
    issueNumber: number('issueNumber'),
    massgenPid: number('massgenPid'),
    massgenIdentity: text('massgenIdentity'),
    warmMassgenPid: number('warmMassgenPid'),
    warmMassgenIdentity: text('warmMassgenIdentity'),
    logDir: text('logDir') || undefined,
    gitCredentials: text('gitCredentials'),
    massgenCacheSave: text('massgenCacheSave')
  }
}
