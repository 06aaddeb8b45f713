// First: on an unsupported Node.js, one line and exit 1 before anything else loads.
import "../startup/nodeVersion.ts"
import { fileURLToPath } from "node:url"
import { buildProblem } from "./buildManifest.ts"

/**
 * What `node dist/main.js` and `node dist/ricochet.js` are (scripts/build.ts makes each from this
 * and the name of its program's bundle): the Node.js version check, then whether the build is
 * still that of its sources, then the program. The program is a bundle of its own, imported once
 * both checks passed: a bundle's imports of the packages kept out of it (uWebSockets.js, which on
 * another Node warns and falls back) all run before any of its own code, the checks included.
 */
export const launch = async (launcherUrl: string, program: string): Promise<void> => {
  const problem = buildProblem(fileURLToPath(new URL(".", launcherUrl)))
  if (problem !== undefined) {
    process.stderr.write(`ricochet: ${problem}\n`)
    process.exit(1)
  }
  await import(new URL(program, launcherUrl).href)
}
