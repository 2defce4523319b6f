// Entry of the post step; the logic is in cleanup.ts.
import * as core from '@actions/core'
import { post } from './cleanup.js'

await post().catch((error: unknown) => {
  // The post step reports problems but never fails the job a second time.
  core.warning(
    `Post step: ${error instanceof Error ? error.message : String(error)}`
  )
})
