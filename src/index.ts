// The one entry of the action (runs.main and runs.post): the main step saves
// State.IsPost before anything else, so the same bundle, started again as the
// post step, finds it and cleans up instead.
import * as core from '@actions/core'
import { State } from './core/constants.js'
import { run } from './main.js'
import { post } from './post.js'
import { errorText } from './core/text.js'

if (core.getState(State.IsPost) === 'true') {
  await post().catch((error: unknown) => {
    // The post step reports problems but never fails the job a second time.
    core.warning(`Post step: ${errorText(error)}`)
  })
} else {
  core.saveState(State.IsPost, 'true')
  await run()
  // Everything is reported by now; an abandoned request (a stalled artifact
  // upload past its limit) must not keep the step alive.
  process.exit()
}
