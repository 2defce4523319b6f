// docs/review-example.md: the review a real run posted (the e2e test
// __tests__/e2e/review-vote.test.ts with WRITE_REVIEW_EXAMPLE=1), its body
// and inline comments verbatim, each under the place GitHub shows it, then
// the sticky comment.
import type { ServerState } from './github-state.ts'

export function renderReviewExample(
  state: ServerState,
  reviewId: number,
  sticky: string
): string {
  const review = state.reviews.find((r) => r.id === reviewId)
  const comments = state.reviewComments.filter((c) => c.reviewId === reviewId)
  const quote = (text: string) =>
    text
      .split('\n')
      .map((l) => (l ? `> ${l}` : '>'))
      .join('\n')
  return [
    '# What a consensus review looks like',
    '',
    'Rendered from a real run: `__tests__/e2e/review-vote.test.ts` (the bundled action',
    'under Node 24, the real MassGen 0.1.97 run twice, for the answers and for the vote',
    'on every finding, three scripted agents, the loopback GitHub checking every line',
    'against the diff). Two agents raise the same problem and the third confirms it in',
    'the vote; one raises a false positive the two others reject; a finding only the',
    "pull request's own description backs is marked. Regenerate with",
    '`WRITE_REVIEW_EXAMPLE=1 node scripts/run-tests.mjs __tests__/e2e/review-vote.test.ts`.',
    'Every text below is what the action posted, verbatim (the hidden markers included).',
    'How such comments look on GitHub: [docs/screenshots/](screenshots/), rendered by',
    '`npm run screenshots` (CONTRIBUTING.md).',
    '',
    `## The review (event \`${review?.event ?? ''}\`, state \`${review?.state ?? ''}\`)`,
    '',
    quote(review?.body ?? ''),
    '',
    '## Its inline comments',
    '',
    ...comments.flatMap((c) => [
      `### \`${c.path}\` ${c.startLine ? `lines ${c.startLine}-${c.line}` : `line ${c.line}`} (${c.side})`,
      '',
      quote(c.body),
      ''
    ]),
    '## The sticky comment, which links the review',
    '',
    quote(sticky),
    ''
  ].join('\n')
}
