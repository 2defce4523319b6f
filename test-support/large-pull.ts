// Pull requests too large for GitHub's diff: files with per-file patches as
// the files list gives them, for the loopback GitHub (github-routes.ts).
import type { ServerFile, ServerPull } from './github-state.ts'
import { samplePull } from './sample-pull.ts'

/** A one-hunk patch as GitHub's files list gives it (no file header). */
export function onePatch(line: string): string {
  return `@@ -1,2 +1,2 @@\n context\n-old\n+${line}`
}

/** `count` modified files `src/gen/f<i>.ts`, each changing one line. */
export function manyFiles(
  count: number,
  line = (i: number) => `LINE-${i}`
): ServerFile[] {
  return Array.from({ length: count }, (_, i) => ({
    filename: `src/gen/f${String(i).padStart(4, '0')}.ts`,
    status: 'modified',
    additions: 1,
    deletions: 1,
    patch: onePatch(line(i))
  }))
}

/**
 * PR #42 (the pull_request fixtures' head) with these files. `diff` is the
 * diff GitHub holds (review comments are checked against it) but, over its
 * limits, never renders: the route answers 406.
 */
export function largePull(files: ServerFile[]): ServerPull {
  const diff = files
    .map((f) =>
      [
        `diff --git a/${f.filename} b/${f.filename}`,
        'index 1111111..2222222 100644',
        `--- a/${f.filename}`,
        `+++ b/${f.filename}`,
        ...(f.patch ? [f.patch] : [])
      ].join('\n')
    )
    .join('\n')
  return { ...samplePull(), files, diff: `${diff}\n` }
}
