// tersh's OpenCode plugin against OpenCode-shaped hook objects, with a real `tersh serve`.
import { test } from "node:test"
import assert from "node:assert/strict"
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadPlugin, makeProfile, python, pythonSource, readOutput, useTersh } from "./harness.mjs"

const ID = /tersh retrieve (o[0-9a-f]{12})/

async function hooksFor(home, extra = {}) {
  useTersh(home, extra)
  const { TershPlugin } = await loadPlugin()
  return TershPlugin({ directory: process.cwd() })
}

test("no hook runs before a tool: OpenCode judges and runs the command the model asked for", async () => {
  const hooks = await hooksFor(makeProfile())
  assert.equal(hooks["tool.execute.before"], undefined)
})

test("a bash output is compacted after the run: exit code kept, capture report, host limits", async () => {
  const hooks = await hooksFor(makeProfile())
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`)
  const output = { title: "seq", output: lines.join("\n") + "\n", metadata: { exit: 3, description: "d" } }
  const input = { tool: "bash", sessionID: "s", callID: "c", args: { command: "seq_like" } }
  await hooks["tool.execute.after"](input, output)
  assert.equal(output.metadata.exit, 3, "OpenCode's exit code stays")
  assert.equal(output.metadata.description, "d")
  assert.match(output.output, /\[tersh\] full output/, "capture report present")
  assert.ok(output.output.split("\n").length <= 2000, "within OpenCode's 2,000 lines")
  assert.ok(Buffer.byteLength(output.output) <= 51200, "within OpenCode's 50 KB")
  assert.ok(output.output.includes("line 5000"), "the tail is kept")
  assert.equal(input.args.command, "seq_like", "the requested command is untouched")

  const ended = { title: "", output: "partial\n".repeat(3000), metadata: {} }
  await hooks["tool.execute.after"]({ tool: "bash", args: { command: "sleep 99" } }, ended)
  assert.equal(ended.output, "partial\n".repeat(3000), "no exit code (host ended it): left alone")
})

test("a truncated bash output is compacted from the full output OpenCode saved", async () => {
  const hooks = await hooksFor(makeProfile())
  const folder = join(mkdtempSync(join(tmpdir(), "oc-data-")), "tool-output")
  mkdirSync(folder)
  const saved = join(folder, "tool_abc")
  const full = Array.from({ length: 4000 }, (_, i) => (i === 10 ? "ERROR early failure at a.py:11" : `row ${i}`))
  writeFileSync(saved, full.join("\n") + "\n")
  const truncated = "...output truncated...\n\nFull output saved to: " + saved + "\n\n" + full.slice(-1900).join("\n")
  const output = { title: "", output: truncated, metadata: { exit: 1, truncated: true, outputPath: saved } }
  await hooks["tool.execute.after"]({ tool: "bash", args: { command: "make" } }, output)
  assert.ok(output.output.includes("ERROR early failure at a.py:11"), "a line only the saved file had")
  assert.equal(output.metadata.tersh.source, "host file")
})

test("a disabled profile changes nothing", async () => {
  const hooks = await hooksFor(makeProfile({ enabled: false }))
  const bash = { title: "", output: "x\n".repeat(9000), metadata: { exit: 0 } }
  await hooks["tool.execute.after"]({ tool: "bash", args: { command: "yes x" } }, bash)
  assert.equal(bash.output, "x\n".repeat(9000))
  const text = readOutput("/x/a.py", pythonSource(400))
  const output = { title: "a.py", output: text, metadata: { truncated: false } }
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "c", args: {} }, output)
  assert.equal(output.output, text)
})

test("a large read is compressed in place with metrics and a working recovery id", async () => {
  const home = makeProfile()
  const hooks = await hooksFor(home)
  const text = readOutput("/x/a.py", pythonSource(400))
  const output = { title: "a.py", output: text, metadata: { truncated: false, preview: "p" } }
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "c", args: { filePath: "/x/a.py" } }, output)
  assert.ok(output.output.length < text.length * 0.9, "saves more than 10%")
  assert.equal(output.metadata.preview, "p", "host metadata kept")
  assert.equal(output.metadata.tersh.applied, true)
  assert.equal(output.metadata.tersh.strategy.startsWith("minimal"), true)
  assert.ok(!output.output.includes("# comment number 3 "), "full-line comments stripped")
  assert.match(output.output, /\n2: value_1 = compute\(1\)  # trailing\n/, "N: prefixes kept")
  const id = output.output.match(ID)[1]
  const stored = readFileSync(join(home, "cache", "tools", `${id}.txt`), "utf8")
  assert.equal(stored, text, "the original is recoverable byte for byte")
})

test("small outputs are untouched", async () => {
  const hooks = await hooksFor(makeProfile())
  const output = { title: "", output: "one line", metadata: {} }
  await hooks["tool.execute.after"]({ tool: "grep", sessionID: "s", callID: "c", args: {} }, output)
  assert.deepEqual(output, { title: "", output: "one line", metadata: {} })
})

test("the host's own saved-output path is used for recovery and stays visible", async () => {
  const hooks = await hooksFor(makeProfile())
  const lines = Array.from({ length: 600 }, (_, i) => `/repo/src/file${i}.ts:${i + 1}:  match ${i}`)
  const text = lines.join("\n")
  const output = { title: "", output: text, metadata: { truncated: true, outputPath: "/tmp/oc/tool_1" } }
  await hooks["tool.execute.after"]({ tool: "grep", sessionID: "s", callID: "c", args: {} }, output)
  assert.equal(output.metadata.outputPath, "/tmp/oc/tool_1")
  assert.ok(output.output.includes("/tmp/oc/tool_1"))
  assert.equal(output.metadata.tersh.recovery.kind, "host")
  for (const line of output.output.split("\n")) {
    if (line.startsWith("/repo/")) assert.ok(lines.includes(line), `match line kept whole: ${line}`)
  }
})

test("MCP results: text and textual resources compressed in their slots, media untouched", async () => {
  const home = makeProfile()
  const hooks = await hooksFor(home)
  const big = Array.from({ length: 500 }, (_, i) => `row ${i}: ${"data ".repeat(6)}`).join("\n")
  const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }
  const audio = { type: "audio", data: "UklGRg==", mimeType: "audio/wav" }
  const link = { type: "resource_link", uri: "file:///x/y.txt", name: "y.txt" }
  const blob = { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" } }
  const output = {
    content: [
      { type: "text", text: big },
      structuredClone(image),
      { type: "resource", resource: { uri: "file:///r.txt", mimeType: "text/plain", text: big + "\nresource tail" } },
      structuredClone(link),
      structuredClone(audio),
      structuredClone(blob),
      { type: "text", text: "short note" },
    ],
  }
  await hooks["tool.execute.after"]({ tool: "mcp_docs_fetch", sessionID: "s", callID: "c", args: {} }, output)
  assert.deepEqual(output.content.map((item) => item.type), ["text", "image", "resource", "resource_link", "audio", "resource", "text"])
  assert.deepEqual(output.content[1], image)
  assert.deepEqual(output.content[3], link)
  assert.deepEqual(output.content[4], audio)
  assert.deepEqual(output.content[5], blob)
  assert.equal(output.content[6].text, "short note")
  assert.ok(output.content[0].text.length < big.length)
  assert.equal(output.content[2].resource.uri, "file:///r.txt")
  assert.ok(output.content[2].resource.text.length < big.length)
  assert.ok(output.content[2].resource.text.includes("resource tail"), "middle cut keeps the tail")
  const ids = [output.content[0].text, output.content[2].resource.text].map((t) => t.match(ID)[1])
  assert.notEqual(ids[0], ids[1])
  assert.equal(readFileSync(join(home, "cache", "tools", `${ids[0]}.txt`), "utf8"), big)
  assert.equal(output.metadata.tersh.applied, true)
})

test("one long-lived tersh child serves every call", async () => {
  const home = makeProfile()
  const log = join(mkdtempSync(join(tmpdir(), "tersh-starts-")), "starts.log")
  const wrapper = join(mkdtempSync(join(tmpdir(), "tersh-wrap-")), "tersh-wrapper.sh")
  writeFileSync(wrapper, `#!/bin/sh\necho start >> '${log}'\nexec '${python}' -m tersh "$@"\n`)
  chmodSync(wrapper, 0o755)
  useTersh(home)
  process.env.TERSH_PLUGIN_ARGV = JSON.stringify([wrapper])
  const { TershPlugin } = await loadPlugin()
  const hooks = await TershPlugin({})
  const text = readOutput("/x/a.py", pythonSource(300))
  const calls = []
  for (let i = 0; i < 20; i++) {
    const output = { title: "", output: text + `\n#${i}`, metadata: {} }
    calls.push(hooks["tool.execute.after"]({ tool: "read", sessionID: "s", callID: `c${i}`, args: {} }, output).then(() => output))
  }
  const outputs = await Promise.all(calls)
  assert.ok(outputs.every((o) => o.metadata.tersh?.applied === true))
  assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 1)
})

test("a missing tersh, a crashing child or a silent child leaves every output as it was", async () => {
  const home = makeProfile()
  const folder = mkdtempSync(join(tmpdir(), "tersh-bad-"))
  const crash = join(folder, "crash.sh")
  writeFileSync(crash, "#!/bin/sh\nexit 3\n")
  chmodSync(crash, 0o755)
  const silent = join(folder, "silent.sh")
  writeFileSync(silent, "#!/bin/sh\nexec sleep 30\n")
  chmodSync(silent, 0o755)
  const garbage = join(folder, "garbage.sh")
  writeFileSync(garbage, "#!/bin/sh\nwhile read line; do echo 'not json'; echo '{\"id\": 1, \"changed\": true, \"output\": 42}'; done\n")
  chmodSync(garbage, 0o755)
  const text = readOutput("/x/a.py", pythonSource(300))
  for (const argv of [[join(folder, "missing")], [crash], [silent], [garbage]]) {
    useTersh(home, { TERSH_PLUGIN_TIMEOUT_MS: "500" })
    process.env.TERSH_PLUGIN_ARGV = JSON.stringify(argv)
    const { TershPlugin } = await loadPlugin()
    const hooks = await TershPlugin({})
    const output = { title: "t", output: text, metadata: { a: 1 } }
    await hooks["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "c", args: {} }, output)
    assert.deepEqual(output, { title: "t", output: text, metadata: { a: 1 } }, `argv ${argv}`)
    const mcp = { content: [{ type: "text", text }] }
    await hooks["tool.execute.after"]({ tool: "mcp_x", sessionID: "s", callID: "c", args: {} }, mcp)
    assert.equal(mcp.content[0].text, text)
    const shell = { title: "", output: "y\n".repeat(9000), metadata: { exit: 0 } }
    await hooks["tool.execute.after"]({ tool: "bash", args: { command: "yes y" } }, shell)
    assert.equal(shell.output, "y\n".repeat(9000))
  }
  delete process.env.TERSH_PLUGIN_TIMEOUT_MS
})

test("malformed hook objects never throw", async () => {
  const hooks = await hooksFor(makeProfile())
  await hooks["tool.execute.after"]({ tool: "read" }, undefined)
  await hooks["tool.execute.after"](undefined, { output: 12 })
  await hooks["tool.execute.after"]({ tool: "bash" }, { output: "x", metadata: { exit: "0" } })
  await hooks["tool.execute.after"]({ tool: "bash", args: { command: 1 } }, { output: "x" })
  const circular = { title: "", output: "x".repeat(5000), metadata: {} }
  circular.metadata.self = circular
  await hooks["tool.execute.after"]({ tool: "read" }, circular)
  assert.equal(circular.output, "x".repeat(5000))
})

test("tersh's own MCP tools (OpenCode: <server>_<tool>) are never compressed again", async () => {
  const hooks = await hooksFor(makeProfile())
  const page = Array.from({ length: 400 }, (_, i) => `${i + 1}: page line ${i}`).join("\n")
  for (const tool of ["tersh_retrieve", "tersh_search"]) {
    const output = { title: "", output: page, metadata: {} }
    await hooks["tool.execute.after"]({ tool, args: {} }, output)
    assert.equal(output.output, page, tool)
    const mcp = { content: [{ type: "text", text: page }] }
    await hooks["tool.execute.after"]({ tool, args: {} }, mcp)
    assert.equal(mcp.content[0].text, page, tool)
  }
})

test("a hung tersh child is replaced: later calls are compressed again", async () => {
  const home = makeProfile()
  const folder = mkdtempSync(join(tmpdir(), "tersh-hang-"))
  const marker = join(folder, "hung-once")
  const wrapper = join(folder, "hang-once.sh")
  // the first child never answers; every later one is a real tersh
  writeFileSync(wrapper, `#!/bin/sh\nif [ ! -e '${marker}' ]; then : > '${marker}'; exec sleep 60; fi\nexec '${python}' -m tersh "$@"\n`)
  chmodSync(wrapper, 0o755)
  useTersh(home, { TERSH_PLUGIN_TIMEOUT_MS: "3000" })
  process.env.TERSH_PLUGIN_ARGV = JSON.stringify([wrapper])
  const { TershPlugin } = await loadPlugin()
  const hooks = await TershPlugin({})
  const text = readOutput("/x/a.py", pythonSource(300))
  const first = { title: "", output: text, metadata: {} }
  await hooks["tool.execute.after"]({ tool: "read", args: {} }, first)
  assert.equal(first.output, text, "the hung child's call keeps the original")
  const second = { title: "", output: text, metadata: {} }
  await hooks["tool.execute.after"]({ tool: "read", args: {} }, second)
  assert.equal(second.metadata.tersh?.applied, true, "a fresh child answered")
  delete process.env.TERSH_PLUGIN_TIMEOUT_MS
})
