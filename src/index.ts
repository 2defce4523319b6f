// The one entry of the action (runs.main and runs.post): the main step saves
// isPost before anything else, so the same bundle, started again as the post
// step, finds it and cleans up instead.
import * as core from '@actions/core'
import { readStepState, saveStepState } from './core/step-state.js'
import { run } from './main.js'
import { failUnexpectedly } from './pipeline/failure.js'
import { post } from './post.js'
import { errorText } from './core/text.js'

if (readStepState().isPost) {
  await post().catch((error: unknown) => {
    // The post step reports problems but never fails the job a second time.
    core.warning(`Post step: ${errorText(error)}`)
  })
} else {
  saveStepState('isPost', true)
  // An error outside execute's own try (reading the event, the setup files,
  // a GitHub call before the run) fails the step with a summary, never as
  // an unhandled rejection.
  await run().catch(failUnexpectedly)
  // Everything is reported by now; an abandoned request (a stalled artifact
  // upload past its limit) must not keep the step alive.
  process.exit()
}
