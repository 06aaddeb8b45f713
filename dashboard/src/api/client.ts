import type { Effect } from "effect"
import type { CallOptions, Client } from "./typedClient.ts"
import type { Outcome } from "./failure.ts"

export type { CallOptions, Client }

/**
 * The typed client (effect and the whole API declaration) is a chunk of its own, loaded on the
 * first call past the sign-in page: the sign-in page never loads it (see sessionCalls.ts).
 */
const typedClient = () => import("./typedClient.ts")

export const preloadClient = () => {
  void typedClient()
}

/** Runs one call of the typed client of the API's declaration; see typedClient.ts. */
export const call = async <A, E>(f: (client: Client) => Effect.Effect<A, E>, options?: CallOptions): Promise<Outcome<A>> =>
  (await typedClient()).call(f, options)
