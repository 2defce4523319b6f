// POST /graphql on the loopback GitHub: queries run by graphql-js against
// GitHub's own published schema (@octokit/graphql-schema), so a query the
// action sends that GitHub would refuse is refused here with GitHub's error
// shape. Resolved from the server's state: a pull request's review threads
// (a thread is a first review comment and its replies, `isOutdated` once a
// push left its line, github-compare.ts) and resolveReviewThread.
import { readFileSync } from 'node:fs'
import {
  buildClientSchema,
  graphqlSync,
  type GraphQLSchema,
  type IntrospectionQuery
} from 'graphql'
import type { Handler } from './github-replies.ts'
import type {
  ServerReviewComment,
  ServerState,
  ServerUser
} from './github-state.ts'

let schema: GraphQLSchema | undefined
/** GitHub's schema, built once per process (5 MB of introspection). */
export function githubSchema(): GraphQLSchema {
  if (!schema) {
    // The introspection result (the SDL defines two fields twice, which
    // graphql-js refuses); the package exports no subpath, so by its path.
    const file = new URL(
      '../node_modules/@octokit/graphql-schema/schema.json',
      import.meta.url
    )
    const json = JSON.parse(readFileSync(file, 'utf8')) as
      IntrospectionQuery | { data: IntrospectionQuery }
    schema = buildClientSchema('data' in json ? json.data : json)
  }
  return schema
}

export function threadId(root: ServerReviewComment): string {
  return `PRRT_${Buffer.from(`thread:${root.id}`).toString('base64url')}`
}

/** GraphQL names a bot by its slug: `github-actions`, not `github-actions[bot]`. */
function actor(u: ServerUser) {
  return u.type === 'Bot'
    ? { __typename: 'Bot', login: u.login.replace(/\[bot\]$/, '') }
    : { __typename: 'User', login: u.login }
}

function connection<T>(items: T[], first: number, after?: string) {
  const start = after
    ? Number(Buffer.from(after, 'base64url').toString()) + 1
    : 0
  const nodes = items.slice(start, start + first)
  const end = start + nodes.length - 1
  return {
    totalCount: items.length,
    nodes,
    pageInfo: {
      hasNextPage: start + nodes.length < items.length,
      endCursor: nodes.length
        ? Buffer.from(String(end)).toString('base64url')
        : null
    }
  }
}

function threadOf(s: ServerState, root: ServerReviewComment) {
  const repo = `${s.owner}/${s.repo}`
  const all = s.reviewComments
    .filter((c) => c.id === root.id || c.inReplyToId === root.id)
    .sort((a, b) => a.id - b.id)
  return {
    id: threadId(root),
    isResolved: root.resolvedBy !== undefined,
    // The schema's resolvedBy is a User: a bot that resolved it is no User.
    resolvedBy:
      root.resolvedBy === undefined || root.resolvedBy.endsWith('[bot]')
        ? null
        : { login: root.resolvedBy },
    isOutdated: root.line === null,
    path: root.path,
    line: root.line,
    originalLine: root.originalLine ?? root.line,
    comments: ({ first, last }: { first?: number; last?: number }) => {
      const items = all.map((c) => ({
        databaseId: c.id,
        body: c.body,
        url: `${s.serverUrl}/${repo}/pull/${c.pullNumber}#discussion_r${c.id}`,
        author: actor(c.user)
      }))
      // `last: n` pages from the end, as GitHub's connections do.
      return last === undefined
        ? connection(items, Math.min(first ?? 100, 100))
        : connection(items.slice(-Math.min(last, 100)), 100)
    }
  }
}

function roots(s: ServerState, n: number): ServerReviewComment[] {
  const pending = new Set(
    s.reviews.filter((r) => r.state === 'PENDING').map((r) => r.id)
  )
  return s.reviewComments
    .filter((c) => c.pullNumber === n && c.inReplyToId === undefined)
    .filter((c) => c.reviewId === null || !pending.has(c.reviewId))
    .sort((a, b) => a.id - b.id)
}

function rootValue(s: ServerState) {
  return {
    repository: ({ owner, name }: { owner: string; name: string }) =>
      owner !== s.owner || name !== s.repo
        ? null
        : {
            pullRequest: ({ number }: { number: number }) =>
              s.pulls[String(number)]
                ? {
                    reviewThreads: (a: { first?: number; after?: string }) =>
                      connection(
                        roots(s, number).map((r) => threadOf(s, r)),
                        Math.min(a.first ?? 100, 100),
                        a.after
                      )
                  }
                : null
          },
    resolveReviewThread: ({ input }: { input: { threadId: string } }) => {
      const root = s.reviewComments.find(
        (c) => c.inReplyToId === undefined && threadId(c) === input.threadId
      )
      if (!root)
        throw new Error(
          `Could not resolve to a node with the global id of '${input.threadId}'`
        )
      root.resolvedBy ??= s.identity.login
      return { thread: threadOf(s, root) }
    }
  }
}

export const graphqlRoutes: [string, Handler][] = [
  [
    'POST /graphql',
    (s, c) => {
      const query = typeof c.body.query === 'string' ? c.body.query : ''
      const variables = (c.body.variables ?? {}) as Record<string, unknown>
      const result = graphqlSync({
        schema: githubSchema(),
        source: query,
        variableValues: variables,
        rootValue: rootValue(s)
      })
      const errors = result.errors?.map((e) => ({
        type: e.path ? 'NOT_FOUND' : undefined,
        path: e.path,
        locations: e.locations,
        message: e.message
      }))
      return {
        status: 200,
        data: {
          ...(result.data !== undefined ? { data: result.data } : {}),
          ...(errors ? { errors } : {})
        }
      }
    }
  ]
]
