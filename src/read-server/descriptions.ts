// The read tools' descriptions, one line each. MassGen sends every tool's
// schema with every request (docs/benchmarks.md, the price of consensus);
// the filesystem server's own descriptions of the four read tools a review
// gets (plan/read-tools.ts READ_TOOLS) are ~1.6 KB of every request, mostly
// advice a reviewer does not need ("Great for finding files ...", "Only
// works within allowed directories", said four times). The parameters and
// their own descriptions stay the server's (short-descriptions.ts puts
// these in place).
import type { READ_TOOLS } from '../plan/read-tools.js'

export const READ_TOOL_DESCRIPTIONS: Readonly<
  Record<(typeof READ_TOOLS)[number], string>
> = {
  read_text_file:
    'Read a text file; head or tail: only its first or last N lines.',
  read_multiple_files: 'Read several text files at once.',
  list_directory: 'List a folder: [FILE] and [DIR] entries.',
  search_files:
    "Find files and folders under path whose path matches a glob pattern ('**/*.ts')."
}
