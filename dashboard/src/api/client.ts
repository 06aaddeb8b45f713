import type { Effect } from "effect"
import type { Client } from "./typedClient.ts"
import type { Outcome } from "./failure.ts"

/**
 * The typed client (effect and the whole API declaration) is a chunk of its own: the sign-in page
 * shows, and the session is asked for, before it has loaded.
 */
const typedClient = () => import("./typedClient.ts")

export const preloadClient = () => {
  void typedClient()
}

/** Runs one call of the typed client of the API's declaration; see typedClient.ts. */
export const call = async <A, E>(f: (client: Client) => Effect.Effect<A, E>, quiet = false): Promise<Outcome<A>> =>
  (await typedClient()).call(f, quiet)
