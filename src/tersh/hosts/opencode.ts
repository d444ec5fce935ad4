/**
 * tersh for OpenCode: installed by `tersh init opencode`, removed by `tersh uninit opencode`.
 * Written by tersh; local edits are replaced on the next `tersh init opencode`.
 *
 * What it does
 * - Nothing before a tool runs: OpenCode judges its `permission.bash` rules against the command
 *   the model asked for, runs it, and keeps it in the model's history. (Rewriting the command
 *   in `tool.execute.before` made OpenCode judge a `tersh run -c '…'` wrapper instead, so a
 *   `"rm *": "deny"` rule no longer matched.)
 * - `tool.execute.after` for `bash`: the command, its exit code (`metadata.exit`) and its
 *   output go to tersh, which compacts them with the pipeline of `tersh compact` (verifier,
 *   preview bound, private capture with its report) and returns the text the model gets.
 *   OpenCode truncates a long output to 2,000 lines / 50 KB before this hook and saves the
 *   whole of it at `metadata.outputPath`; tersh then reads that file, not the truncated text.
 * - `tool.execute.after` for every other tool (read, grep, glob, task, webfetch, plugin and MCP
 *   tools): the output is compressed in place, except tersh's own MCP tools (OpenCode names
 *   them `<server>_<tool>`: a `tersh_retrieve` page is already what the model asked for).
 * - All of it goes to ONE long-lived `tersh serve --stdio` child speaking JSON lines, so no
 *   Python starts per tool call; a child that stops answering is killed and replaced. Any
 *   error or timeout leaves OpenCode's own output (fail open).
 * - This file imports nothing but Node's own modules, so OpenCode needs no npm package for it.
 *
 * OpenCode's plugin API, as documented and typed (checked when this file was written):
 * - https://opencode.ai/docs/plugins : plugins are modules in `.opencode/plugins/` (project) or
 *   `~/.config/opencode/plugins/` (global) exporting async functions that receive a context
 *   and return a hooks object; `tool.execute.after(input, output)` may change `output.output`.
 * - OpenCode 1.18.33 (checked in the real binary by tests/e2e/test_opencode_host.py): a
 *   built-in tool's output is truncated (2,000 lines or 51,200 bytes, the full text saved in
 *   `<data>/opencode/tool-output/`, `metadata.truncated` and `metadata.outputPath` set) before
 *   `tool.execute.after` runs, and what the hook leaves in `output.output` is what the model
 *   gets; the bash tool's `metadata.exit` is the exit code (absent when OpenCode ended it).
 * - `@opencode-ai/plugin` (packages/plugin/src/index.ts in the opencode repository):
 *   `tool.execute.before(input: {tool, sessionID, callID}, output: {args})` and
 *   `tool.execute.after(input: {tool, sessionID, callID, args}, output: {title, output,
 *   metadata})`, both awaited; the output object is mutated in place.
 * - packages/opencode/src/session/tools.ts: for an MCP tool the `after` hook receives the raw
 *   MCP result (`{content: [...], ...}`) and OpenCode builds the model's text from
 *   `result.content` after the hook (text items and `resource.text`; images and blobs become
 *   attachments). So MCP text is replaced in its own slot and nothing else is touched.
 */

import { spawn, type ChildProcess } from "node:child_process"

/** How to start tersh, as a JSON array of argv words: filled in by `tersh init opencode`. */
const INSTALLED_ARGV = "__TERSH_ARGV__"

/** The argv to start tersh with (`TERSH_PLUGIN_ARGV` wins); [] when unusable. */
function tershArgv(): string[] {
  try {
    const value = JSON.parse(process.env.TERSH_PLUGIN_ARGV || INSTALLED_ARGV)
    const usable = Array.isArray(value) && value.length > 0
    return usable && value.every((word: unknown) => typeof word === "string") ? value : []
  } catch {
    return []
  }
}

const SHELL_TOOLS = new Set(["bash"])
/** OpenCode names MCP tools `<server>_<tool>`; tersh's own server's results are left whole. */
const OWN_TOOL = /^tersh_/
/** OpenCode's own inline limit for a tool output (its Truncate MAX_LINES / MAX_BYTES). */
const HOST_LIMITS = { max_lines: 2000, max_bytes: 51200 }
/** Longest waits for an answer (`TERSH_PLUGIN_TIMEOUT_MS` overrides both). */
const SHELL_TIMEOUT_MS = Number(process.env.TERSH_PLUGIN_TIMEOUT_MS) || 10000
const COMPRESS_TIMEOUT_MS = Number(process.env.TERSH_PLUGIN_TIMEOUT_MS) || 5000
/** Children started at most (the first and its replacements) before tersh is left out. */
const MAX_STARTS = 4

type Answer = Record<string, any> | null

interface Pending {
  resolve: (answer: Answer) => void
  timer: ReturnType<typeof setTimeout>
}

/** One `tersh serve --stdio` child shared by every hook call; every failure yields null. */
class TershService {
  private child: ChildProcess | null = null
  private buffer = ""
  private nextId = 1
  private starts = 0
  private pending = new Map<number, Pending>()

  constructor(private readonly argv: string[]) {}

  private start(): ChildProcess | null {
    if (this.child) return this.child
    if (this.starts >= MAX_STARTS || this.argv.length === 0) return null
    this.starts += 1
    let child: ChildProcess
    try {
      child = spawn(this.argv[0], [...this.argv.slice(1), "serve", "--stdio"], {
        stdio: ["pipe", "pipe", "ignore"],
        env: process.env,
      })
    } catch {
      return null
    }
    child.stdout?.setEncoding("utf8")
    child.stdout?.on("data", (chunk: string) => this.receive(chunk))
    child.stdin?.on("error", () => this.stop(child))
    child.on("error", () => this.stop(child))
    child.on("exit", () => this.stop(child))
    child.unref()
    ;(child.stdin as any)?.unref?.()
    ;(child.stdout as any)?.unref?.()
    this.child = child
    return child
  }

  private stop(child: ChildProcess): void {
    if (this.child !== child) return
    this.child = null
    try {
      child.kill("SIGKILL")
    } catch {
      // already gone
    }
    this.buffer = ""
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer)
      this.pending.delete(id)
      entry.resolve(null)
    }
  }

  private receive(chunk: string): void {
    this.buffer += chunk
    let newline = this.buffer.indexOf("\n")
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline)
      this.buffer = this.buffer.slice(newline + 1)
      newline = this.buffer.indexOf("\n")
      let answer: Answer = null
      try {
        answer = JSON.parse(line)
      } catch {
        continue
      }
      const entry = answer && this.pending.get(answer.id)
      if (!entry) continue
      clearTimeout(entry.timer)
      this.pending.delete(answer!.id)
      entry.resolve(answer)
    }
  }

  /** Send one request; resolves with the answer, or null on any error or timeout. */
  request(body: Record<string, unknown>, timeoutMs: number): Promise<Answer> {
    return new Promise((resolve) => {
      try {
        const child = this.start()
        if (!child || !child.stdin) return resolve(null)
        const id = this.nextId++
        const line = JSON.stringify({ ...body, id }) + "\n"
        const timer = setTimeout(() => {
          // a child that misses an answer is hung or overloaded: replace it (next request)
          this.pending.delete(id)
          resolve(null)
          this.stop(child)
        }, timeoutMs)
        this.pending.set(id, { resolve, timer })
        child.stdin.write(line, (error) => {
          if (error) this.stop(child)
        })
      } catch {
        resolve(null)
      }
    })
  }
}

/** Replace MCP text slots in place, only when the answer has the same shape. */
function applyContent(content: any[], replacement: unknown): boolean {
  if (!Array.isArray(replacement) || replacement.length !== content.length) return false
  for (let i = 0; i < content.length; i++) {
    const before = content[i]
    const after = replacement[i] as any
    if (!before || !after || before.type !== after.type) return false
    if (before.type === "text" && typeof after.text !== "string") return false
    if (before.type === "resource" && before.resource && typeof before.resource.text === "string") {
      if (!after.resource || typeof after.resource.text !== "string") return false
    }
  }
  for (let i = 0; i < content.length; i++) {
    const before = content[i]
    const after = replacement[i] as any
    if (before.type === "text") before.text = after.text
    else if (before.type === "resource" && typeof before.resource?.text === "string") {
      before.resource.text = after.resource.text
    }
  }
  return true
}

function withMetrics(metadata: unknown, answer: Answer): Record<string, unknown> {
  const base = metadata && typeof metadata === "object" ? (metadata as Record<string, unknown>) : {}
  return { ...base, tersh: answer?.metadata?.tersh }
}

/** Replace a finished bash call's output with tersh's compacted text (fail open). */
async function compactShell(service: TershService, input: any, output: any): Promise<void> {
  const command = input?.args?.command
  const metadata = output.metadata && typeof output.metadata === "object" ? output.metadata : {}
  if (typeof command !== "string" || typeof output.output !== "string") return
  const request: Record<string, unknown> = {
    type: "shell",
    command,
    exit_code: Number.isInteger(metadata.exit) ? metadata.exit : null,
    output: output.output,
    limits: HOST_LIMITS,
  }
  if (metadata.truncated === true && typeof metadata.outputPath === "string") {
    request.full_output_path = metadata.outputPath
  }
  const answer = await service.request(request, SHELL_TIMEOUT_MS)
  if (answer?.changed === true && typeof answer.output === "string") {
    output.output = answer.output
    output.metadata = withMetrics(output.metadata, answer)
  }
}

/** The plugin: OpenCode calls this once per project and keeps the hooks it returns. */
export const TershPlugin = async (_context?: unknown) => {
  const service = new TershService(tershArgv())

  return {
    "tool.execute.after": async (input: any, output: any) => {
      try {
        if (!output) return
        const tool = typeof input?.tool === "string" ? input.tool : ""
        if (SHELL_TOOLS.has(tool)) return await compactShell(service, input, output)
        if (OWN_TOOL.test(tool)) return
        if (Array.isArray(output.content)) {
          const answer = await service.request(
            { tool, output: output.content, metadata: output.metadata ?? {} },
            COMPRESS_TIMEOUT_MS,
          )
          if (answer?.changed === true && applyContent(output.content, answer.output)) {
            output.metadata = withMetrics(output.metadata, answer)
          }
          return
        }
        if (typeof output.output !== "string") return
        const answer = await service.request(
          { tool, output: output.output, metadata: output.metadata ?? {} },
          COMPRESS_TIMEOUT_MS,
        )
        if (answer?.changed === true && typeof answer.output === "string") {
          output.output = answer.output
          output.metadata = withMetrics(output.metadata, answer)
        }
      } catch {
        // fail open: the original output stays
      }
    },
  }
}
