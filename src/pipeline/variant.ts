// One walk for every role: the role's prepare, its execute (MassGen run, or
// the shards' records gathered) and its finish, in that order, each once.
// What a role changes is the variant it hands in (pipeline/roles.ts); the
// walk, the decide before it and the step's end after it are the same.
import type { ProcessRunner } from '../core/process.js'
import type { Ending } from '../shards/role-job.js'

export type { Ending }

/** One role's stages between decide and the step's end. */
export interface Variant<Prepared, Ran> {
  /** What the role's run starts from; undefined when it stopped (said already). */
  prepare(runner: ProcessRunner): Promise<Prepared | undefined>
  execute(prepared: Prepared, runner: ProcessRunner): Promise<Ran>
  finish(prepared: Prepared, ran: Ran): Promise<Ending>
  /**
   * Where an error that prepare or execute did not catch is reported, before
   * the report would have been; without it, the error fails the step
   * (index.ts).
   */
  failed?(error: unknown): Promise<void>
}

/** The role's stages in order: the ending, or undefined when it stopped. */
export async function walk<Prepared, Ran>(
  variant: Variant<Prepared, Ran>,
  runner: ProcessRunner
): Promise<Ending | undefined> {
  const ran = await prepareAndExecute(variant, runner).catch(
    async (error: unknown) => {
      if (!variant.failed) throw error
      await variant.failed(error)
      return undefined
    }
  )
  if (!ran) return undefined
  return variant.finish(ran.prepared, ran.ran)
}

async function prepareAndExecute<Prepared, Ran>(
  variant: Variant<Prepared, Ran>,
  runner: ProcessRunner
): Promise<{ prepared: Prepared; ran: Ran } | undefined> {
  const prepared = await variant.prepare(runner)
  if (prepared === undefined) return undefined
  return { prepared, ran: await variant.execute(prepared, runner) }
}
