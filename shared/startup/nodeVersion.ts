/**
 * Imported first by every entry point (main.ts, the CLI): on a Node.js the engine cannot run on,
 * one line saying which is needed, and exit 1, before any module that would fail less clearly is
 * loaded. package.json's `engines`, the README and the Dockerfile say the same.
 */

/** The Node.js versions Ricochet runs on: 20.19 and later 20.x. */
export const SUPPORTED_NODE = { major: 20, minMinor: 19 } as const

/** Why `version` (process.versions.node) cannot run Ricochet, or undefined when it can. */
export const nodeVersionProblem = (version: string): string | undefined => {
  const [major, minor] = version.split(".").map(Number)
  if (major === SUPPORTED_NODE.major && minor >= SUPPORTED_NODE.minMinor) return undefined
  return `Node.js ${SUPPORTED_NODE.major} (${SUPPORTED_NODE.major}.${SUPPORTED_NODE.minMinor} or newer) is needed, this is ${version}: ` +
    `the uWebSockets.js build the engine loads (20.30, the only one on npm) exists for Node ${SUPPORTED_NODE.major}'s ABI and no later one`
}

const problem = nodeVersionProblem(process.versions.node)
if (problem !== undefined) {
  process.stderr.write(`ricochet: ${problem}\n`)
  process.exit(1)
}
