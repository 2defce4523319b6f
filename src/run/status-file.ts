// MassGen's status.json, read leniently: every field optional, so a partial
// or older file still yields what it has. Shape checked against 0.1.97's real
// output (docs/massgen-0.1.97.md, __fixtures__/massgen/). Read while the run
// goes (progress, the cost cap) and again by results/ after it.
import { z } from 'zod'
import { LogReader } from '../safety/log-reader.js'

const num = z.number().finite().optional().catch(undefined)
const str = z.string().optional().catch(undefined)

const agentStatusSchema = z
  .object({
    status: str,
    answer_count: num,
    latest_answer_label: z.string().nullish().catch(undefined),
    vote_cast: z
      .object({
        voted_for_agent: str,
        voted_for_label: str,
        reason_preview: str
      })
      .nullish()
      .catch(undefined),
    error: z.object({ type: str, message: str }).nullish().catch(undefined),
    // Where 0.1.97 keeps API errors when an agent is dropped without an
    // `error` (every request failed): its enforcement retries.
    reliability: z
      .object({
        enforcement_attempts: z
          .array(
            z
              .object({
                reason: str,
                error_message: z.string().nullish().catch(undefined)
              })
              .catch({})
          )
          .optional()
          .catch(undefined)
      })
      .nullish()
      .catch(undefined),
    token_usage: z
      .object({ input_tokens: num, output_tokens: num, estimated_cost: num })
      .nullish()
      .catch(undefined)
  })
  .catch({})

const statusSchema = z.object({
  is_complete: z.boolean().optional().catch(undefined),
  finish_reason: str,
  finish_reason_details: z.string().nullish().catch(undefined),
  meta: z
    .object({ question: str, elapsed_seconds: num, start_time: num })
    .optional()
    .catch(undefined),
  costs: z
    .object({
      total_estimated_cost: num,
      total_input_tokens: num,
      total_output_tokens: num
    })
    .optional()
    .catch(undefined),
  coordination: z
    .object({
      phase: str,
      completion_percentage: num,
      active_agent: z.string().nullish().catch(undefined)
    })
    .optional()
    .catch(undefined),
  agents: z.record(z.string(), agentStatusSchema).optional().catch(undefined),
  historical_workspaces: z
    .array(
      z.object({ agentId: str, answerLabel: str, timestamp: str }).catch({
        agentId: undefined,
        answerLabel: undefined,
        timestamp: undefined
      })
    )
    .optional()
    .catch(undefined),
  results: z
    .object({
      votes: z.record(z.string(), z.number()).optional().catch(undefined),
      winner: z.string().nullish().catch(undefined),
      final_answer_preview: z.string().nullish().catch(undefined)
    })
    .optional()
    .catch(undefined)
})

export type MassgenStatus = z.infer<typeof statusSchema>
export type AgentStatus = z.infer<typeof agentStatusSchema>

/** Parses status.json text; undefined when it is missing, truncated or not JSON. */
export function parseStatus(
  text: string | undefined
): MassgenStatus | undefined {
  if (text === undefined) return undefined
  try {
    const parsed = statusSchema.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** A vote.json as MassGen writes it next to each vote. */
export const voteFileSchema = z.object({
  voter_id: z.string(),
  voted_for: z.string().optional(),
  voted_for_label: z.string().optional(),
  reason: z.string().optional()
})
export type VoteFile = z.infer<typeof voteFileSchema>

/** Largest status.json or vote.json read. */
export const MAX_JSON_BYTES = 8 * 1024 * 1024

/**
 * status.json while MassGen runs, read as readRunFiles reads it: only inside
 * LOG_DIR, only a regular file, at most MAX_JSON_BYTES. An agent can reach
 * the log folder (local mode), and a blocking read would stop the deadline.
 */
export function readStatusFile(
  logDir: string,
  file: string
): MassgenStatus | undefined {
  const raw = new LogReader(logDir).readText(file, MAX_JSON_BYTES)
  return raw ? parseStatus(raw.text) : undefined
}
