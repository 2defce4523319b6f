// A review of the small sample pull request (#42, review-pull.ts) by two
// agents on the local model (local-model-process.ts), through the bundled
// action with the real MassGen: shared by `npm run demo -- --local-model`,
// the real-model lane (__tests__/e2e/local-model.test.ts,
// __tests__/docker/local-model-docker.test.ts) and the bench.
//
// Its settings keep a review within minutes on a loaded machine: two agents,
// `review: inline` with the vote on findings, the read tools only (a
// read-only review: no command tool), and the local server's own bounds
// (local-model-turn.ts: a short rebuilt prompt, small outputs).
import { startGitHubServer, type GitHubServer } from './github-server.ts'
import { event } from './fixtures.ts'
import {
  startLocalModel,
  type LocalModel,
  type LocalModelOptions
} from './local-model-process.ts'
import { reviewPull } from './review-pull.ts'
import { releaseWhen } from './live-slot.ts'
import { runAction, type ActionRun, type RunOptions } from './run-action.ts'

export const LOCAL_AGENTS = ['local-a', 'local-b']

/** The action's inputs of a local-model review (Docker mode adds its own). */
export function localReviewInputs(
  modelUrl: string,
  massgen: string
): Record<string, string> {
  return {
    query: 'Review this pull request.',
    models: LOCAL_AGENTS.map((m) => `vllm/${m}`).join(' '),
    'base-url': modelUrl,
    'massgen-command': massgen,
    review: 'inline',
    'finding-vote': 'true',
    'max-duration': '1800',
    'upload-logs': 'false',
    docker: 'false'
  }
}

export interface LocalReview {
  run: ActionRun
  github: GitHubServer
  model: LocalModel
}

/**
 * One review; the servers are left open for the caller to read and close
 * (closeLocalReview).
 */
export async function localReview(
  massgen: string,
  options: {
    model?: LocalModelOptions
    inputs?: Record<string, string>
    run?: Partial<RunOptions>
    /** The live slot's release (live-slot.ts): called once the model has its first request. */
    release?: () => void
  } = {}
): Promise<LocalReview> {
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = reviewPull()
  const model = await startLocalModel({
    models: LOCAL_AGENTS,
    ...options.model
  })
  const running = runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github.url,
    ...options.run,
    inputs: {
      ...localReviewInputs(model.url, massgen),
      ...options.inputs
    }
  })
  // MassGen and its first MCP servers have started once the model is asked
  const release = options.release
  if (release)
    void releaseWhen(() => model.requests().length > 0, release, running)
  return { run: await running, github, model }
}

export async function closeLocalReview(review: LocalReview): Promise<void> {
  await review.model.close()
  await review.github.close()
}
