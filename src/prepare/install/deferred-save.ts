// The Actions cache save of a fresh install, off the critical path: the
// main step records where the install is, its key and its fingerprint
// (fingerprint.ts) before MassGen first starts; the post step, once MassGen
// and its containers are gone, saves it only when the marker is complete and
// the fingerprint is unchanged. MassGen runs from a linked copy of the
// install (run-copy.ts), so its own writes at start-up never touch what is
// saved. So what is saved is the install as it was before any agent ran,
// and the upload (~360 MB) never delays MassGen.
import { fingerprintTree, type VenvFingerprint } from './fingerprint.js'
import { isComplete, type VenvLayout } from './layout.js'
import { removeRunCopy } from './run-copy.js'
import type { CacheStore } from './cache.js'
import type { CacheEntry } from './split.js'
import { errorText } from '../../core/text.js'
import type { CacheSavePolicy } from '../../core/types.js'
import type { Log } from '../../core/log.js'

/**
 * Whether this run saves what it installed. `auto` saves except on a pull
 * request's ref (`refs/pull/N/merge` or `/head`): GitHub lets a pull request
 * restore the default branch's entries, so one saved per pull request only
 * fills the repository's 10 GB and evicts the team's other caches.
 */
export function savesOnRef(
  policy: CacheSavePolicy,
  ref: string | undefined
): boolean {
  if (policy === 'always') return true
  if (policy === 'never') return false
  return !(ref ?? '').startsWith('refs/pull/')
}

/** What the post step needs to save an install (core.saveState, JSON). */
export interface PendingSave {
  dir: string
  /** The core first, then the extras (split.ts). */
  entries: CacheEntry[]
  requirement: string
  extras: string
  fingerprint: VenvFingerprint
  /** The linked copy MassGen ran from (run-copy.ts), removed after the save. */
  runCopy: string
}

/** Taken right after the install and its run copy, before MassGen first starts. */
export function pendingSaveFor(
  layout: VenvLayout,
  runCopy: string
): PendingSave {
  return {
    dir: layout.dir,
    entries: [
      layout.entries.core,
      ...(layout.entries.extras ? [layout.entries.extras] : [])
    ],
    requirement: layout.requirement,
    extras: layout.extras,
    fingerprint: fingerprintTree(layout.dir),
    runCopy
  }
}

type SaveOutcome = 'saved' | 'refused' | 'failed' | 'none'

/**
 * The post step's save. Refuses an install whose marker is gone or whose
 * fingerprint changed: an agent (or a later step) wrote into it, and a
 * cached copy would carry that write into every later run.
 */
export async function saveDeferredInstall(
  state: string,
  cache: CacheStore,
  log: Log
): Promise<SaveOutcome> {
  const pending = parsePending(state)
  if (!pending) return 'none'
  try {
    return await saveUnchanged(pending, cache, log)
  } finally {
    // After the save: unlinking changes the install's change times.
    removeRunCopy(pending.runCopy, pending.dir)
  }
}

/** No save after all (no cache service in the post step): the copy goes. */
export function discardDeferredInstall(state: string): void {
  const pending = parsePending(state)
  if (pending) removeRunCopy(pending.runCopy, pending.dir)
}

async function saveUnchanged(
  pending: PendingSave,
  cache: CacheStore,
  log: Log
): Promise<SaveOutcome> {
  if (!isComplete(pending)) {
    log.warning(
      `MassGen: not saved to the Actions cache: ${pending.dir} is no longer a complete install`
    )
    return 'refused'
  }
  let now: VenvFingerprint
  try {
    now = fingerprintTree(pending.dir)
  } catch (error) {
    log.warning(
      `MassGen: not saved to the Actions cache: could not read ${pending.dir}: ${errorText(error)}`
    )
    return 'refused'
  }
  if (now.hash !== pending.fingerprint.hash) {
    log.warning(
      `MassGen: not saved to the Actions cache: ${pending.dir} changed after it was installed ` +
        `(${pending.fingerprint.entries} entries then, ${now.entries} now), so it is no longer ` +
        'the install as it was before the agents ran; the next run installs afresh.'
    )
    return 'refused'
  }
  const started = performance.now()
  const failed: string[] = []
  // One after the other: nothing waits on the post step's upload.
  for (const entry of pending.entries) {
    try {
      await cache.save(entry.paths, entry.key)
    } catch (error) {
      // Another job may have saved the same key first: nothing is lost.
      log.warning(
        `MassGen: cache save failed (${entry.key}): ${errorText(error)}`
      )
      failed.push(entry.key)
    }
  }
  if (failed.length === pending.entries.length) return 'failed'
  const seconds = (performance.now() - started) / 1000
  const saved = pending.entries.filter((e) => !failed.includes(e.key))
  log.info(
    `MassGen: saved the install to the Actions cache as ${saved.map((e) => e.key).join(' and ')} (${seconds.toFixed(1)} s, in the post step)`
  )
  return failed.length > 0 ? 'failed' : 'saved'
}

function parsePending(state: string): PendingSave | undefined {
  if (!state) return undefined
  try {
    const value = JSON.parse(state) as Partial<PendingSave>
    if (
      typeof value.dir === 'string' &&
      Array.isArray(value.entries) &&
      value.entries.length > 0 &&
      value.entries.every(isEntry) &&
      typeof value.requirement === 'string' &&
      typeof value.extras === 'string' &&
      typeof value.runCopy === 'string' &&
      typeof value.fingerprint?.hash === 'string'
    )
      return value as PendingSave
  } catch {
    // Not ours: nothing to save.
  }
  return undefined
}

function isEntry(value: unknown): value is CacheEntry {
  const entry = value as Partial<CacheEntry> | null
  return (
    typeof entry?.key === 'string' &&
    Array.isArray(entry.paths) &&
    entry.paths.length > 0 &&
    entry.paths.every((p) => typeof p === 'string')
  )
}
