import type { KV, NatsConnection } from "nats"

/**
 * A key one process holds among all the processes on a NATS server (an engine's id): a JetStream
 * key-value entry that the holder writes again every third of its TTL. A holder that dies stops
 * writing and its entry expires after LEASE_TTL_MS; one that stops gracefully deletes it.
 */

const BUCKET = "ricochet_leases"
export const LEASE_TTL_MS = 15_000

/** What a claim came to. */
export type ClaimOutcome =
  | { readonly held: true; readonly release: () => Promise<void> }
  | { readonly held: false; readonly by: string }

export interface LeaseRequest {
  readonly key: string
  /** What the entry says of its holder (shown to the one refused). */
  readonly holder: string
  /** Whether the present holder may be replaced: an earlier life of this process that died. */
  readonly mayReplace: (current: string) => boolean
  /** Another holder found after the claim was granted (its entry expired while this one could not renew it). */
  readonly onConflict: (current: string) => void
}

const text = (value: Uint8Array | undefined) => new TextDecoder().decode(value)

/** The bucket, or undefined when the server has no JetStream (leases cannot be checked there). */
export const leaseBucket = async (nc: NatsConnection): Promise<KV | undefined> => {
  try {
    // A server without JetStream answers the API's request with an error, or not at all: bounded either way.
    return await nc.jetstream({ timeout: 2_000 }).views.kv(BUCKET, { ttl: LEASE_TTL_MS, history: 1 })
  } catch (error) {
    console.warn(`change bus: NATS has no JetStream here, so engine ids cannot be checked against each other (${(error as Error).message})`)
    return undefined
  }
}

/** Writes the entry if nobody holds it (or a replaceable holder does); the revision written, or who holds it. */
const take = async (kv: KV, request: LeaseRequest): Promise<{ revision: number } | { by: string }> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return { revision: await kv.create(request.key, new TextEncoder().encode(request.holder)) }
    } catch {
      const entry = await kv.get(request.key)
      if (entry === null || entry.operation !== "PUT") continue
      const current = text(entry.value)
      if (current === request.holder || request.mayReplace(current)) {
        try {
          return { revision: await kv.update(request.key, new TextEncoder().encode(request.holder), entry.revision) }
        } catch {
          continue
        }
      }
      return { by: current }
    }
  }
  const entry = await kv.get(request.key)
  return { by: entry === null ? "a process that keeps changing it" : text(entry.value) }
}

/**
 * Claims `request.key` in `kv` and keeps it: renewed every third of the TTL; if a renewal finds
 * another holder (this one could not renew for longer than the TTL), `onConflict` is told.
 */
export const holdLease = async (kv: KV, request: LeaseRequest): Promise<ClaimOutcome> => {
  const first = await take(kv, request)
  if ("by" in first) return { held: false, by: first.by }
  let revision = first.revision
  let stopped = false
  const renew = async () => {
    try {
      revision = await kv.update(request.key, new TextEncoder().encode(request.holder), revision)
    } catch {
      if (stopped) return
      // Expired or overwritten while renewals failed: take it again, or learn who has it.
      const again = await take(kv, request).catch(() => undefined)
      if (again === undefined || stopped) return
      if ("revision" in again) revision = again.revision
      else {
        stopped = true
        clearInterval(timer)
        request.onConflict(again.by)
      }
    }
  }
  const timer = setInterval(() => void renew(), LEASE_TTL_MS / 3)
  timer.unref()
  return {
    held: true,
    release: async () => {
      stopped = true
      clearInterval(timer)
      const entry = await kv.get(request.key).catch(() => null)
      if (entry !== null && entry.operation === "PUT" && text(entry.value) === request.holder) await kv.delete(request.key).catch(() => undefined)
    }
  }
}
