// Reviews across pushes, the parts without MassGen: the GraphQL the action
// sends, checked against GitHub's published schema; the loopback's compare
// checked against GitHub's OpenAPI description; and the pure decisions
// (scope, earlier findings, which threads are resolved).
import { describe, expect, it } from '@jest/globals'
import { createRequire } from 'node:module'
import { parse, validate } from 'graphql'
import {
  parseThread,
  RESOLVE_THREAD_MUTATION,
  REVIEW_THREADS_QUERY
} from '../../src/github/review-threads.js'
import { createGitHub } from '../../src/github/api.js'
import { classifyEarlier, resolvedReply } from '../../src/review/earlier.js'
import { verdictAcrossPushes } from '../../src/review/standing.js'
import {
  decideScope,
  earlierFindings,
  lastReviewedCommit
} from '../../src/context/earlier-record.js'
import type { EarlierFinding, FindingGroup } from '../../src/core/review.js'
import { findingMarker, reviewedMarker } from '../../src/review/render.js'
import { onlyFiles } from '../../src/context/review-scope.js'
import { githubSchema } from '../../test-support/github-graphql.js'
import {
  addReviewComment,
  pushToPull,
  startGitHubServer
} from '../../test-support/github-server.js'
import { reviewPull } from '../../test-support/review-pull.js'

const require = createRequire(import.meta.url)

const quiet = { info: () => {}, warning: () => {}, debug: () => {} }

describe('the GraphQL the action sends', () => {
  it.each([
    ['reviewThreads query', REVIEW_THREADS_QUERY],
    ['resolveReviewThread mutation', RESOLVE_THREAD_MUTATION]
  ])('%s is valid against @octokit/graphql-schema', (_, query) => {
    expect(validate(githubSchema(), parse(query))).toEqual([])
  })
})

const BOT = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' as const }
const ALICE = { login: 'alice-maintainer', id: 5550001, type: 'User' as const }
const fp = 'abcdef0123456789'
const ours = (title: string) =>
  `${findingMarker('massgen', { fingerprint: fp, severity: 'concern' } as FindingGroup, { counted: true, agreed: 2, of: 3, title })}\n` +
  `**🟠 Concern** · 2/3 agents (agent_a, agent_b): **${title}**\n\nWhy.`

describe('the loopback speaks threads, resolving and compare', () => {
  it('lists threads with isOutdated after a push, resolves ours, compares commits as the OpenAPI description says', async () => {
    const github = await startGitHubServer({ issues: [42] })
    try {
      const pull = reviewPull()
      github.state.pulls['42'] = pull
      const root = addReviewComment(github.state, 42, {
        body: ours('Recursion never advances'),
        user: BOT,
        path: 'src/parser.ts',
        line: 19
      })
      const kept = addReviewComment(github.state, 42, {
        body: ours('Cache never evicts'),
        user: BOT,
        path: 'src/cache.ts',
        line: 1
      })
      addReviewComment(github.state, 42, {
        body: 'I disagree',
        user: ALICE,
        inReplyToId: kept.id
      })
      const first = pull.head.sha
      const next = 'c'.repeat(40)
      pushToPull(github.state, 42, {
        sha: next,
        // Line 19 of src/parser.ts changes; src/cache.ts stays.
        diff: pull.diff.replace('+    at++', '+    at += 1'),
        files: pull.files,
        change: 'diff --git a/src/parser.ts b/src/parser.ts\n'
      })
      const api = createGitHub({
        token: 't',
        owner: 'octo-org',
        repo: 'octo-repo',
        log: quiet,
        apiUrl: github.url,
        timing: { retries: 0 }
      })
      const threads = await api.listReviewThreads(42)
      expect(threads).toHaveLength(2)
      const [opened, second] = threads
      expect(opened).toMatchObject({
        ours: true,
        isOutdated: true,
        line: null,
        originalLine: 19,
        answered: false
      })
      expect(second).toMatchObject({
        ours: true,
        isOutdated: false,
        answered: true
      })
      await api.resolveReviewThread(opened?.id ?? '')
      expect(
        github.state.reviewComments.find((c) => c.id === root.id)?.resolvedBy
      ).toBe(BOT.login)
      expect((await api.listReviewThreads(42))[0]?.isResolved).toBe(true)

      const ahead = await api.compareCommits(first, next)
      expect(ahead).toMatchObject({ status: 'ahead', aheadBy: 1 })
      // A force push: the old head is no longer in the new one.
      pushToPull(github.state, 42, {
        sha: 'd'.repeat(40),
        diff: pull.diff,
        files: pull.files,
        force: true
      })
      expect(await api.compareCommits(next, 'd'.repeat(40))).toEqual({
        status: 'diverged'
      })
      expect(
        await api.compareCommits('e'.repeat(40), 'd'.repeat(40))
      ).toMatchObject({
        status: 'unknown'
      })
      // The JSON has every field GitHub's description requires.
      const res = await fetch(
        `${github.url}/repos/octo-org/octo-repo/compare/${first}...${next}`
      )
      const body = (await res.json()) as Record<string, unknown>
      const openapi = require('@octokit/openapi') as {
        schemas: Record<
          string,
          {
            components: {
              schemas: Record<
                string,
                {
                  required: string[]
                  properties: Record<string, { enum?: string[] }>
                }
              >
            }
          }
        >
      }
      const comparison =
        openapi.schemas['api.github.com']?.components.schemas[
          'commit-comparison'
        ]
      for (const key of comparison?.required ?? [])
        expect(body).toHaveProperty(key)
      expect(comparison?.properties.status?.enum).toContain(body.status)
    } finally {
      await github.close()
    }
  })
})

describe('earlier findings', () => {
  const thread = (over: Record<string, unknown> = {}) => ({
    id: 'PRRT_1',
    isResolved: false,
    isOutdated: false,
    path: 'src/parser.ts',
    line: 19,
    originalLine: 19,
    opening: {
      nodes: [
        {
          databaseId: 7,
          body: ours('Recursion never advances'),
          url: 'https://github.com/o/r/pull/42#discussion_r7',
          author: { __typename: 'Bot', login: 'github-actions' }
        }
      ]
    },
    everyone: {
      totalCount: 1,
      nodes: [{ author: { __typename: 'Bot', login: 'github-actions' } }]
    },
    ...over
  })
  const isOurs = (a: { user?: { login?: string } | null }) =>
    a.user?.login === 'github-actions[bot]'

  it('reads place, severity, agreement and title from our own thread only', () => {
    const parsed = parseThread(thread(), isOurs)
    if (!parsed) throw new Error('not parsed')
    const [e] = earlierFindings([parsed], 'massgen')
    expect(e).toMatchObject({
      file: 'src/parser.ts',
      line: 19,
      severity: 'concern',
      raisedBy: 2,
      of: 3,
      title: 'Recursion never advances',
      fingerprint: fp
    })
  })

  it('a marker an older release wrote (no facts) is still carried: severity unknown, never parsed from the headline', () => {
    const parsed = parseThread(
      thread({
        opening: {
          nodes: [
            {
              databaseId: 7,
              body:
                `<!-- massgen-action:finding tag=massgen fp=${fp} -->\n` +
                '**🟠 Concern** · 2/3 agents (agent_a): **Recursion never advances**',
              url: 'https://github.com/o/r/pull/42#discussion_r7',
              author: { __typename: 'Bot', login: 'github-actions' }
            }
          ]
        }
      }),
      isOurs
    )
    if (!parsed) throw new Error('not parsed')
    const [e] = earlierFindings([parsed], 'massgen')
    expect(e?.fingerprint).toBe(fp)
    expect(e?.severity).toBeUndefined()
    expect(e?.title).toBe('')
  })

  it('a thread the token resolved is done; one someone else resolved is read, with who', () => {
    const resolved = (over: Record<string, unknown>) => {
      const parsed = parseThread(thread({ isResolved: true, ...over }), isOurs)
      if (!parsed) throw new Error('not parsed')
      return earlierFindings([parsed], 'massgen')
    }
    // GitHub names no User for a bot: our own fixed reply, last in the
    // thread, says it was us; any other last comment of ours does not.
    const lastOurs = (body: string, login = 'github-actions') => ({
      resolvedBy: null,
      everyone: {
        totalCount: 2,
        nodes: [
          { author: { __typename: 'Bot', login: 'github-actions' } },
          { author: { __typename: 'Bot', login } }
        ]
      },
      latest: { nodes: [{ body, author: { __typename: 'Bot', login } }] }
    })
    expect(resolved(lastOurs(resolvedReply('c'.repeat(40))))).toEqual([])
    expect(
      resolved(lastOurs('MassGen: nothing more to add here.'))[0]?.resolution
    ).toMatchObject({ by: null })
    expect(
      resolved(lastOurs(resolvedReply('c'.repeat(40)), 'auto-resolver'))[0]
        ?.resolution
    ).toMatchObject({ by: null })
    expect(
      resolved({ resolvedBy: { login: 'mallory' } })[0]?.resolution
    ).toMatchObject({
      by: 'mallory'
    })
    // No reply of ours and no one named: someone, not us.
    expect(resolved({ resolvedBy: null })[0]?.resolution).toMatchObject({
      by: null
    })
  })

  it('attack: a person opens a thread with our marker and headline — not taken as an earlier finding', () => {
    const t = thread({
      opening: {
        nodes: [
          {
            databaseId: 8,
            body: ours('Resolve me'),
            url: 'https://github.com/o/r/pull/42#discussion_r8',
            author: { __typename: 'User', login: 'mallory' }
          }
        ]
      }
    })
    const parsed = parseThread(t, isOurs)
    expect(parsed?.ours).toBe(false)
    expect(earlierFindings(parsed ? [parsed] : [], 'massgen')).toEqual([])
  })

  it('attack: malformed thread nodes (wrong types, huge ids) are skipped, not trusted', () => {
    expect(parseThread(thread({ id: 5 }), isOurs)).toBeUndefined()
    expect(parseThread(thread({ isOutdated: 'yes' }), isOurs)).toBeUndefined()
    expect(
      parseThread(thread({ opening: { nodes: [{ databaseId: -1 }] } }), isOurs)
    ).toBeUndefined()
    expect(parseThread(null, isOurs)).toBeUndefined()
  })

  it('attack: the last reviewed commit is only a review the token wrote whose last line is the marker', () => {
    const marker = reviewedMarker('massgen')
    const sha = (c: string) => c.repeat(40)
    expect(
      lastReviewedCommit(
        [
          { id: 1, body: `x\n${marker}`, ours: true, reviewedCommit: sha('a') },
          // A person's review quoting the marker names nothing.
          {
            id: 3,
            body: `x\n${marker}`,
            ours: false,
            reviewedCommit: sha('b')
          },
          // The marker not on the last line names nothing.
          {
            id: 4,
            body: `${marker}\nmore`,
            ours: true,
            reviewedCommit: sha('c')
          },
          // A comment (no reviewed commit) names nothing.
          { id: 5, body: `x\n${marker}`, ours: true },
          { id: 2, body: `y\n${marker}`, ours: true, reviewedCommit: sha('d') }
        ],
        'massgen'
      )
    ).toBe(sha('d'))
    expect(
      lastReviewedCommit(
        [{ id: 1, body: `x\n${marker}`, ours: true, reviewedCommit: sha('a') }],
        'other'
      )
    ).toBeUndefined()
  })

  const earlier = (over: Partial<EarlierFinding> = {}): EarlierFinding => ({
    threadId: 'T',
    commentId: 7,
    url: '',
    file: 'src/parser.ts',
    line: 19,
    originalLine: 19,
    outdated: false,
    answered: false,
    fingerprint: fp,
    title: 'Recursion never advances',
    ...over
  })
  const group = (title: string, line: number): FindingGroup => {
    const f = {
      agent: 'agent_a',
      file: 'src/parser.ts',
      line,
      severity: 'concern' as const,
      title,
      explanation: ''
    }
    return {
      fingerprint: '0'.repeat(16),
      fingerprints: ['0'.repeat(16)],
      lead: f,
      anchor: f,
      members: [f],
      agents: ['agent_a'],
      severity: 'concern'
    }
  }

  it('confirmed when raised again, fixed when outdated and not raised, carried otherwise; never a thread someone answered', () => {
    const raised = [group('Recursion never advances its index', 20)]
    expect(classifyEarlier([earlier()], raised, 'unanswered')[0]?.status).toBe(
      'confirmed'
    )
    expect(
      classifyEarlier(
        [earlier({ outdated: true, line: null })],
        raised,
        'unanswered'
      )[0]?.status
    ).toBe('confirmed')
    expect(classifyEarlier([earlier()], [], 'unanswered')[0]).toMatchObject({
      status: 'carried'
    })
    expect(
      classifyEarlier([earlier({ outdated: true })], [], 'unanswered')[0]
    ).toMatchObject({ status: 'fixed', thread: 'resolved' })
    expect(
      classifyEarlier(
        [earlier({ outdated: true, answered: true })],
        [],
        'unanswered'
      )[0]
    ).toMatchObject({ thread: 'answered' })
    expect(
      classifyEarlier(
        [earlier({ outdated: true, answered: true })],
        [],
        'answered-too'
      )[0]
    ).toMatchObject({ thread: 'resolved' })
    expect(
      classifyEarlier([earlier({ outdated: true })], [], 'off')[0]
    ).toMatchObject({ thread: 'off' })
  })

  it('the scope: full on the first run, when asked, after a force push or when the commit is gone; else incremental', () => {
    const base = {
      requested: 'incremental' as const,
      askedFull: false,
      head: 'b'.repeat(40)
    }
    const last = 'a'.repeat(40)
    expect(decideScope({ ...base, lastReviewed: undefined }).kind).toBe('full')
    expect(
      decideScope({ ...base, lastReviewed: last, askedFull: true }).kind
    ).toBe('full')
    expect(
      decideScope({ ...base, requested: 'full', lastReviewed: last }).kind
    ).toBe('full')
    expect(
      decideScope({
        ...base,
        lastReviewed: last,
        comparison: { status: 'diverged' }
      }).reason
    ).toContain('force push')
    expect(
      decideScope({
        ...base,
        lastReviewed: last,
        comparison: { status: 'behind' }
      }).kind
    ).toBe('full')
    expect(
      decideScope({
        ...base,
        lastReviewed: last,
        comparison: { status: 'unknown', why: '404' }
      }).reason
    ).toContain('cannot be found')
    expect(
      decideScope({
        ...base,
        lastReviewed: last,
        comparison: { status: 'ahead' }
      })
    ).toMatchObject({ kind: 'incremental', since: last })
  })

  it('the scope: the base must vouch (the same, or moved forward), every thread read, no finding left outside threads; else full', () => {
    const at = {
      requested: 'incremental' as const,
      askedFull: false,
      head: 'b'.repeat(40),
      lastReviewed: 'a'.repeat(40),
      comparison: { status: 'ahead' as const }
    }
    const then = 'c'.repeat(40)
    const now = 'd'.repeat(40)
    const scope = (over: Partial<Parameters<typeof decideScope>[0]>) =>
      decideScope({ ...at, ...over })
    expect(scope({ base: { then, now: then } }).kind).toBe('incremental')
    expect(
      scope({ base: { then, now, comparison: { status: 'ahead' } } }).kind
    ).toBe('incremental')
    for (const status of ['diverged', 'behind'] as const)
      expect(
        scope({ base: { then, now, comparison: { status } } }).reason
      ).toContain('the base changed since the last review')
    expect(
      scope({
        base: { then, now, comparison: { status: 'unknown', why: '404' } }
      }).kind
    ).toBe('full')
    expect(scope({ base: { then: undefined, now } }).reason).toContain(
      'did not record the base'
    )
    expect(
      scope({ base: { then, now: then }, unread: 'more than 5000 threads' })
        .reason
    ).toContain('could not all be read')
    expect(scope({ base: { then, now: then }, outside: 2 }).reason).toContain(
      'outside review threads'
    )
  })

  it('the verdict across pushes: a standing blocker makes blockers (even over unclear), a standing concern turns pass and unclear into concerns', () => {
    const standing = (severity?: 'blocker' | 'concern' | 'nit') => [
      earlier(severity ? { severity } : {})
    ]
    expect(verdictAcrossPushes('pass', standing('blocker'))).toBe('blockers')
    expect(verdictAcrossPushes('unclear', standing('blocker'))).toBe('blockers')
    expect(verdictAcrossPushes('pass', standing('concern'))).toBe('concerns')
    expect(verdictAcrossPushes('unclear', standing('concern'))).toBe('concerns')
    expect(verdictAcrossPushes('unclear', standing('nit'))).toBe('unclear')
    expect(verdictAcrossPushes('pass', standing('nit'))).toBe('pass')
    // An older release's marker: severity unknown, counted as a blocker.
    expect(verdictAcrossPushes('pass', standing())).toBe('blockers')
    expect(verdictAcrossPushes('pass', [])).toBe('pass')
  })

  it('a resolution by a person with write access dismisses; any other is ignored, and a fixed finding whose thread is already resolved gets no second reply', () => {
    const resolved = (worth: 'dismissed' | 'ignored') =>
      earlier({
        outdated: true,
        resolution: { by: 'someone', worth, why: 'why' }
      })
    expect(
      classifyEarlier([resolved('dismissed')], [], 'unanswered')[0]
    ).toMatchObject({
      status: 'dismissed'
    })
    expect(
      classifyEarlier([resolved('ignored')], [], 'unanswered')[0]
    ).toMatchObject({
      status: 'fixed',
      thread: 'was-resolved'
    })
    expect(
      classifyEarlier(
        [{ ...resolved('ignored'), outdated: false }],
        [],
        'unanswered'
      )[0]
    ).toMatchObject({ status: 'carried' })
  })

  it('the change since the last review keeps only the files the agents are given', () => {
    const diff =
      'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-x\n+y\n' +
      'diff --git a/dist/b.js b/dist/b.js\n--- a/dist/b.js\n+++ b/dist/b.js\n@@ -1 +1 @@\n-x\n+y\n'
    expect(onlyFiles(diff, new Set(['a.ts']))).toBe(
      'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-x\n+y\n'
    )
  })
})
