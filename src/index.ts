// Entry of the main step; the logic starts in main.ts so tests import it freely.
import { run } from './main.js'

await run()
