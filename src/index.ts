// Entry of the main step; the logic starts in main.ts so tests import it freely.
import { run } from './main.js'

await run()
// Everything is reported by now; an abandoned request (a stalled artifact
// upload past its limit) must not keep the step alive.
process.exit()
