// What MassGen 0.1.97 asks the scripted LLM and what the script answers:
// the script's types, the `<agentN.M>` answer labels in a request, and the
// rule that picks a new answer, a vote or the final presentation.
//
// Protocol as MassGen 0.1.97 sends it (see docs/massgen-0.1.97.md):
// - every request is POST /v1/chat/completions with stream: true and tools;
// - coordination requests carry the workflow tools `new_answer` and `vote`;
// - the winner's final presentation carries no `vote` tool;
// - answers of the other agents appear in the user message as
//   `<agentN.M> text <end of agentN.M>`.
// - an agent with `commands` first calls MassGen's command tool, one command
//   per request (see llm-commands.ts), then answers with the evidence.

import {
  answerWithEvidence,
  commandToolName,
  type CommandResult
} from './llm-commands.ts'
import { answerWithQuotes, readToolName, type ReadResult } from './llm-reads.ts'

export type { ChatMessage } from './llm-commands.ts'

export type FailureMode =
  'http500' | 'refuse' | 'hang' | 'plaintext' | 'context-overflow'

export interface AgentScript {
  /** Text of this agent's `new_answer`; default `Answer from <model>.`. */
  answer?: string
  /** Text of the final presentation; default: the answer text. */
  finalAnswer?: string
  /**
   * Whom to vote for: a real agent id (mapped to its anonymous label through
   * `LlmScript.agentIds`), an anonymous id like `agent2`, or 'lowest label'
   * (the default: the lowest `<agentN.M>` label in the user message).
   */
  voteFor?: string
  /** Reason sent with the vote. */
  voteReason?: string
  /** Wait this long before answering each request (ms). */
  delayMs?: number
  /** Wait this long between SSE chunks (ms): slow streaming. */
  chunkDelayMs?: number
  /**
   * USD reported in each reply's usage (`usage.cost`, as OpenRouter sends
   * it): MassGen's estimated cost then grows by this much per request.
   */
  costPerRequest?: number
  /** Split the tool-call arguments into this many chunks (default 2). */
  argumentChunks?: number
  fail?: FailureMode
  /** Fail only the first N requests of this model, then behave. */
  failTimes?: number
  /**
   * Behave for the first N requests of this model, then fail (a model
   * server that stops answering mid-run: `fail: 'hang'`).
   */
  failAfter?: number
  /** Plain text used by `plaintext` failures. */
  text?: string
  /**
   * Shell commands to run through MassGen's command tool: one tool call per
   * request, in order, each after the previous one's result came back, in the
   * first coordination request (answer or vote stage) that offers the tool,
   * before any answer with them. The answer after the last result is `answer`
   * followed by each command with the exit code, stdout and stderr MassGen
   * reported (`answerWithEvidence`); every later answer and the final
   * presentation (unless `finalAnswer`) repeat it, and the commands never run
   * again. Until MassGen offers and reaches the tool (its MCP server may start
   * late, or not at all in a round), the agent answers and votes by the plain
   * rule, its answer saying why the commands did not run, and tries them all
   * again in its next conversation. Final presentations never run commands.
   */
  commands?: string[]
  /**
   * Shell commands to run in the agent's final presentation, if it wins, the
   * same way (one per request, in order): MassGen mounts `write` context
   * paths writable only then. The presentation's text is `finalAnswer` (or
   * the answer) followed by their evidence. Without a reachable command
   * tool, the presentation is given without them.
   */
  finalCommands?: string[]
  /**
   * Files to read through the read tool (llm-reads.ts), one per request, in
   * the first coordination request that offers it; the answer then quotes
   * them. Without the tool the agent answers by the plain rule, saying so.
   */
  reads?: string[]
  /**
   * `false`: the answer after the reads does not quote them (the demo's
   * agents answer as reviewers do, without the whole diff they read).
   */
  quoteReads?: false
  /**
   * How the agent behaves in the review's vote round (a request whose
   * messages hold the `massgen-finding-votes` instructions): these fields
   * replace the ones above there, e.g. `{ answer: <a votes block> }`.
   */
  voteRound?: Omit<AgentScript, 'voteRound'>
}

/** The fence the vote round's question asks for (src/core/findings-fence.ts). */
export const VOTE_ROUND_MARK = 'massgen-finding-votes'

/** The agent's script for a request: its vote-round part in the vote round. */
export function scriptFor(agent: AgentScript, voteRound: boolean): AgentScript {
  return voteRound && agent.voteRound ? { ...agent, ...agent.voteRound } : agent
}

export interface LlmScript {
  /** Per agent, keyed by the backend's `model` name. */
  agents?: Record<string, AgentScript>
  /** Applied to models absent from `agents`. */
  default?: AgentScript
  /**
   * The real agent ids of the run. MassGen 0.1.97 numbers the anonymous ids
   * agent1..N in the SORTED order of the real ids
   * (coordination_tracker.get_anonymous_agent_mapping); needed to vote by
   * real id.
   */
  agentIds?: string[]
}

export interface ToolDef {
  type?: string
  function?: { name?: string; parameters?: unknown }
  name?: string
}

const LABEL_RE = /<(agent\d+)\.(\d+)>/g

export function messageText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (typeof part === 'string') return part
        if (part && typeof part === 'object' && 'text' in part) {
          const t = (part as { text?: unknown }).text
          return typeof t === 'string' ? t : ''
        }
        return ''
      })
      .join('\n')
  }
  return ''
}

/** Distinct `<agentN.M>` labels found in the text, in order. */
export function findLabels(text: string): string[] {
  const seen: string[] = []
  for (const m of text.matchAll(LABEL_RE)) {
    const label = `${m[1]}.${m[2]}`
    // only count labels that are closed, i.e. real answer blocks
    if (!text.includes(`<end of ${label}>`)) continue
    if (!seen.includes(label)) seen.push(label)
  }
  return seen
}

function labelOrder(label: string): [number, number] {
  const m = /^agent(\d+)\.(\d+)$/.exec(label)
  return m ? [Number(m[1]), Number(m[2])] : [Infinity, Infinity]
}

/** The lowest label by agent number, then answer number. */
export function lowestLabel(labels: string[]): string | undefined {
  return [...labels].sort((a, b) => {
    const [a1, a2] = labelOrder(a)
    const [b1, b2] = labelOrder(b)
    return a1 - b1 || a2 - b2
  })[0]
}

export function toolName(t: ToolDef): string {
  return t.function?.name ?? t.name ?? ''
}

export function voteEnum(tools: ToolDef[]): string[] {
  const vote = tools.find((t) => toolName(t) === 'vote')
  const params = vote?.function?.parameters as
    { properties?: { agent_id?: { enum?: unknown } } } | undefined
  const e = params?.properties?.agent_id?.enum
  return Array.isArray(e) ? e.filter((x) => typeof x === 'string') : []
}

/** Resolve a voteFor setting to an anonymous agent id (agentN). */
export function resolveVote(
  voteFor: string | undefined,
  labels: string[],
  script: LlmScript,
  choices: string[]
): string {
  const lowest = lowestLabel(labels)
  const fallback = (lowest ? lowest.split('.')[0] : choices[0]) ?? 'agent1'
  if (!voteFor || voteFor === 'lowest label' || voteFor === 'lowest') {
    return fallback
  }
  if (/^agent\d+$/.test(voteFor) && !script.agentIds?.includes(voteFor)) {
    return voteFor
  }
  const ids = [...(script.agentIds ?? [])].sort()
  const index = ids.indexOf(voteFor)
  if (index < 0) return fallback
  const anon = `agent${index + 1}`
  // MassGen only accepts votes for agents whose answer it has shown
  return labels.some((l) => l.startsWith(`${anon}.`)) ? anon : fallback
}

/** What the server knows of the agent's commands when a request comes. */
export interface CommandState {
  /** Tool names the request offers. */
  toolNames: string[]
  /** Results of the command tool in this request's messages, in order. */
  results: CommandResult[]
  /**
   * The answer given once the commands had run (server memory across
   * conversations); undefined while they are still to run.
   */
  answered?: string
  /** Results of the read tool in this request's messages, in order. */
  reads?: ReadResult[]
  /** The request is the review's vote round (VOTE_ROUND_MARK). */
  voteRound?: boolean
  /** The path a script's read names (`prompt:NAME`, llm-reads.ts). */
  readPath?: (wanted: string) => string
}

export type Decision =
  | {
      kind: 'new_answer' | 'vote' | 'final'
      args: Record<string, string>
      /** This answer carries the results of all the agent's commands. */
      withEvidence?: true
    }
  | { kind: 'command'; tool: string; args: { command: string } }
  | { kind: 'read'; tool: string; args: { path: string } }

/** The tool a decision calls. */
export function toolFor(decision: Decision): string {
  if (decision.kind === 'command' || decision.kind === 'read')
    return decision.tool
  return decision.kind === 'vote' ? 'vote' : 'new_answer'
}

/**
 * Why the commands cannot run in this conversation: no command tool offered,
 * or MassGen could not reach it (its reply is then an error text, not the
 * tool's JSON, e.g. "Error: Server 'command_line' not connected").
 */
export function commandsBlocked(state: CommandState): string | undefined {
  if (!commandToolName(state.toolNames)) {
    const offered = state.toolNames.join(', ') || 'none'
    return `no command tool offered (tools: ${offered})`
  }
  const failed = state.results.find((r) => r.exitCode === undefined)
  return failed
    ? `MassGen could not run \`${failed.command}\`: ${failed.content.slice(0, 500)}`
    : undefined
}

/** The next command, or the answer with the evidence once all ran. */
function commandStep(
  tool: string,
  commands: string[],
  answer: string,
  results: CommandResult[]
): Decision {
  const next = commands[results.length]
  if (next !== undefined) {
    return { kind: 'command', tool, args: { command: next } }
  }
  return {
    kind: 'new_answer',
    args: { content: answerWithEvidence(answer, results) },
    withEvidence: true
  }
}

/** The final presentation, after the agent's final commands if any. */
function finalPresentation(
  agent: AgentScript,
  answer: string,
  commands: CommandState
): Decision {
  const text = agent.finalAnswer ?? answer
  const tool = commandToolName(commands.toolNames)
  const wanted = agent.finalCommands ?? []
  if (wanted.length === 0 || !tool || commandsBlocked(commands))
    return { kind: 'final', args: { content: text } }
  const next = wanted[commands.results.length]
  if (next !== undefined)
    return { kind: 'command', tool, args: { command: next } }
  return {
    kind: 'final',
    args: { content: answerWithEvidence(text, commands.results) }
  }
}

/**
 * The rule that converges, plus the script's overrides. An agent with
 * commands runs them in the first conversation where MassGen offers and
 * reaches its command tool, then answers with the evidence, whatever the
 * stage. MassGen drops an MCP server that is not up within 30 s for that round
 * (mcp_tools/client.py), which a busy machine makes common, so until then the
 * agent follows the plain rule, its answers saying why the commands did not
 * run, and tries again in its next conversation.
 */
export function decide(
  model: string,
  hasVoteTool: boolean,
  labels: string[],
  choices: string[],
  script: LlmScript,
  commands: CommandState = { toolNames: [], results: [] }
): Decision {
  const agent = scriptFor(
    script.agents?.[model] ?? script.default ?? {},
    commands.voteRound === true
  )
  let answer = commands.answered ?? agent.answer ?? `Answer from ${model}.`
  if (!hasVoteTool) return finalPresentation(agent, answer, commands)
  if (agent.reads?.length && commands.answered === undefined) {
    const tool = readToolName(commands.toolNames)
    const done = commands.reads ?? []
    const next = agent.reads[done.length]
    if (tool && next !== undefined)
      return {
        kind: 'read',
        tool,
        args: { path: commands.readPath ? commands.readPath(next) : next }
      }
    if (tool)
      return {
        kind: 'new_answer',
        args: {
          content:
            agent.quoteReads === false ? answer : answerWithQuotes(answer, done)
        },
        withEvidence: true
      }
    answer = `${answer}\n\nFiles not read: no read tool offered (tools: ${commands.toolNames.join(', ') || 'none'}).`
  }
  if (agent.commands?.length && commands.answered === undefined) {
    const blocked = commandsBlocked(commands)
    const tool = commandToolName(commands.toolNames)
    if (!blocked && tool) {
      return commandStep(tool, agent.commands, answer, commands.results)
    }
    answer = `${answer}\n\nCommands not run: ${blocked}.`
  }
  if (labels.length === 0) {
    return { kind: 'new_answer', args: { content: answer } }
  }
  return {
    kind: 'vote',
    args: {
      agent_id: resolveVote(agent.voteFor, labels, script, choices),
      reason: agent.voteReason ?? `Voting as scripted for ${model}.`
    }
  }
}
