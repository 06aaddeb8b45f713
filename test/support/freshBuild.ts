import { buildIfStale } from "../../scripts/build.ts"

/**
 * Vitest's global setup: the processes the tests start run the build in dist/ (as `npm start`
 * does), so it is made again first when a source changed since (or there is none), rather than
 * testing an older build, which the processes would refuse to run anyway.
 */
export default async function setup(): Promise<void> {
  const started = Date.now()
  if (await buildIfStale()) console.log(`Built dist/ for the tests in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
