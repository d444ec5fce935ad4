// Load tersh's OpenCode plugin (TypeScript) under plain Node: strip the types with sucrase,
// then import the result as an ES module. Shapes below mirror OpenCode's hook objects
// (@opencode-ai/plugin: tool.execute.before/after; MCP results carry `content`).
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { execFileSync } from "node:child_process"
import { transform } from "sucrase"

const here = dirname(fileURLToPath(import.meta.url))
export const repo = resolve(here, "..", "..")
export const pluginSource = join(repo, "src", "tersh", "hosts", "opencode.ts")
export const python = process.env.TERSH_TEST_PYTHON || join(repo, ".venv", "bin", "python")

let counter = 0

/** Import a fresh copy of the plugin module (module-level constants re-read the environment). */
export async function loadPlugin() {
  const ts = readFileSync(pluginSource, "utf8")
  const { code } = transform(ts, { transforms: ["typescript"], disableESTransforms: true })
  const folder = mkdtempSync(join(tmpdir(), "tersh-plugin-"))
  const file = join(folder, `tersh-${process.pid}-${counter++}.mjs`)
  writeFileSync(file, code)
  return import(pathToFileURL(file).href)
}

/** A fresh profile folder; `enabled` is written through tersh's own CLI. */
export function makeProfile({ enabled = true } = {}) {
  const home = mkdtempSync(join(tmpdir(), "tersh-home-"))
  mkdirSync(home, { recursive: true })
  if (enabled) {
    execFileSync(python, ["-m", "tersh", "enable"], { env: { ...process.env, TERSH_HOME: home } })
  }
  return home
}

/** Point the plugin at this repository's tersh with a given profile and small budgets. */
export function useTersh(home, extra = {}) {
  process.env.TERSH_HOME = home
  process.env.TERSH_PLUGIN_ARGV = JSON.stringify([python, "-m", "tersh"])
  process.env.TERSH_TRIGGER_TOKENS = "300"
  process.env.TERSH_TARGET_TOKENS = "250"
  Object.assign(process.env, extra)
}

/** A read tool's output the way OpenCode formats it (`N: ` prefixes inside <content>). */
export function readOutput(path, lines) {
  const body = lines.map((line, i) => `${i + 1}: ${line}`).join("\n")
  return `<path>${path}</path>\n<type>file</type>\n<content>\n${body}\n\n(End of file - total ${lines.length} lines)\n</content>`
}

export function pythonSource(count) {
  const lines = []
  for (let i = 0; i < count; i++) {
    lines.push(i % 3 === 0 ? `# comment number ${i} explaining nothing much` : `value_${i} = compute(${i})  # trailing`)
  }
  return lines
}
