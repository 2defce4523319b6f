// What `review: inline` asks the agents for: the findings block results/ and
// review/ read back (review/findings.ts).
import {
  FINDINGS_FENCE,
  MAX_FINDINGS_PER_AGENT,
  WALKTHROUGH_FENCE
} from '../core/findings-fence.js'

/**
 * The example item of the instructions: a small model copies it verbatim
 * (issue 44), so review/findings.ts drops an item that repeats its text.
 */
export const EXAMPLE_FINDING = {
  file: 'path/changed/in/the/pull/request.ts',
  title: 'Short title',
  explanation: 'Why it is a problem and what to do.',
  suggestion: 'replacement text for lines 10 to 12'
} as const

/**
 * Appended to the question. Fixed text: nothing from the pull request goes
 * in, so no author can rewrite the instructions.
 */
export function reviewInstructions(): string {
  return [
    '',
    '',
    '---',
    'Review mode: besides your answer in prose, report each problem you find in the',
    "pull request's changes as one item of a JSON array in a fenced block whose info",
    `string is \`${FINDINGS_FENCE}\` (write \`[]\` inside it when you find none). One item:`,
    '',
    '```json',
    `{"file": "${EXAMPLE_FINDING.file}", "start_line": 10, "line": 12,`,
    ` "severity": "concern", "title": "${EXAMPLE_FINDING.title}",`,
    ` "explanation": "${EXAMPLE_FINDING.explanation}",`,
    ` "suggestion": "${EXAMPLE_FINDING.suggestion}"}`,
    '```',
    '',
    "- `file`: the path as in the pull request's changed files.",
    '- `line`: the line number in the NEW version of the file (the right side of the',
    '  diff); `start_line` (optional, less than `line`) makes it a range.',
    '- `severity`: `blocker` (must be fixed before merging), `concern` (should be',
    '  fixed or answered) or `nit` (minor).',
    '- `suggestion` (optional): the exact new text of those lines, with no fence, only',
    '  when you are sure of it.',
    `At most ${MAX_FINDINGS_PER_AGENT} findings, most important first. The block is read by a program:`,
    'write valid JSON and only one such block.',
    `Before it, a \`${WALKTHROUGH_FENCE}\` block, one line per changed file: \`path: what the change does\`.`
  ].join('\n')
}
