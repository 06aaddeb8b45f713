// Fixes in installed packages that their published versions lack, applied after every install
// (npm's postinstall; the Dockerfile runs it after its own `npm ci --ignore-scripts`). Each edit
// replaces one exact piece of a package's file: a new version of the package where a piece is no
// longer found stops the install here, so whoever upgrades it checks whether the fix is still
// needed (and drops it, or carries it over) instead of shipping without it. Applying twice
// changes nothing. `node patches/apply.mjs --check` only says whether every edit is in place.
//
// postgres 3.4.9 (postgres.js), when a connection closes while a transaction holds it (a
// database that refuses connections, a network cut, a stalled socket we drop):
//  - The transaction's next statement, or the ROLLBACK postgres.js itself sends when the
//    transaction's callback fails, is written to the closed connection: the write is deferred to
//    a setImmediate that finds no socket and throws a TypeError no caller can catch, which ends
//    the process (upstream issues 1066, 1154, 1208). Or, if the pool has connected that
//    connection again in between for other work, the statement runs there, outside any
//    transaction. Fixed: once its connection has closed, a transaction's statements fail with
//    the close's error and nothing more is written.
//  - A close with a write still deferred cancels the deferred write but leaves the timer and the
//    bytes in place, so the connection's next start-up message is never sent: the pool keeps a
//    connection that only times out. Fixed: the close drops both; and a deferred write that finds
//    no socket fails its queries instead of throwing.
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"

const PATCHES = [
  {
    name: "postgres",
    version: "3.4.9",
    // The ESM build (what Node imports), the CommonJS build and the Workers build: the same code.
    files: ["src", "cjs/src", "cf/src"].flatMap((dir) => [
      {
        file: `${dir}/index.js`,
        edits: [
          {
            find: "      , prepare = null\n",
            replace: "      , prepare = null\n      , closedError = null // ricochet patch\n"
          },
          {
            find: "new Promise((_, reject) => connection.onclose = reject)",
            replace: "new Promise((_, reject) => connection.onclose = (e) => { closedError = e; reject(e) }) // ricochet patch"
          },
          {
            find: "      function handler(q) {\n        q.catch(e => uncaughtError || (uncaughtError = e))\n",
            replace: "      function handler(q) {\n" +
              "        // ricochet patch: nothing more is written to a transaction's closed connection.\n" +
              "        if (closedError)\n" +
              "          return q.reject(closedError)\n" +
              "        q.catch(e => uncaughtError || (uncaughtError = e))\n"
          }
        ]
      },
      {
        file: `${dir}/connection.js`,
        edits: [
          {
            find: "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n",
            replace: "  function nextWrite(fn) {\n" +
              "    // ricochet patch: a deferred write that finds its connection closed fails its queries.\n" +
              "    if (socket === null) {\n" +
              "      chunk = nextWriteTimer = null\n" +
              "      error(Errors.connection('CONNECTION_CLOSED', options))\n" +
              "      return false\n" +
              "    }\n" +
              "    const x = socket.write(chunk, fn)\n"
          },
          {
            // In terminate() and in closed().
            find: "    clearImmediate(nextWriteTimer)\n    if (socket) {\n",
            replace: "    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null // ricochet patch\n    if (socket) {\n"
          },
          {
            find: "    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)\n",
            replace: "    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null // ricochet patch\n    socket.removeListener('data', data)\n"
          }
        ]
      }
    ])
  }
]

const check = process.argv.includes("--check")
// The project's own node_modules (every patched package is a direct dependency).
const modules = path.resolve(import.meta.dirname, "..", "node_modules")
const missing = []

for (const patch of PATCHES) {
  const root = path.join(modules, patch.name)
  const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))
  if (version !== patch.version) {
    throw new Error(`patches/apply.mjs: ${patch.name} is ${version}, the patch is for ${patch.version}: check whether the fix is still needed, then update or drop it`)
  }
  for (const { file, edits } of patch.files) {
    const target = path.join(root, file)
    let text = readFileSync(target, "utf8")
    for (const { find, replace } of edits) {
      if (text.includes(replace)) continue
      if (!text.includes(find)) throw new Error(`patches/apply.mjs: ${patch.name}/${file} does not contain the piece to replace: ${JSON.stringify(find)}`)
      if (check) missing.push(`${patch.name}/${file}: ${JSON.stringify(find)}`)
      else text = text.replace(find, replace)
    }
    if (!check) writeFileSync(target, text)
  }
}

if (missing.length > 0) {
  console.error(`patches/apply.mjs: not applied:\n${missing.join("\n")}`)
  process.exit(1)
}
