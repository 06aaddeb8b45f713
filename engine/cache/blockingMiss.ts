import { type MessagePort, receiveMessageOnPort } from "node:worker_threads"
import type { SourceAnswer, SourceCall } from "../../shared/engine/httpWorkerMessages.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import type { EntryLoads } from "./entryLoads.ts"
import type { LinkCache } from "./linkCache.ts"
import { type DomainEntry, type Entries, type LinkEntry, MISSING } from "./linkStore.ts"

/*
 * A cache miss answered before its request handler returns, by blocking the HTTP worker for the
 * main thread's query. Why: uWS.js closes a connection, without a word, when it parses a request
 * while an earlier answer on it is still pending (engine/http/pendingAnswers.ts), and it parses
 * every request of one read in one go. A miss answered later would cost the requests pipelined
 * behind it in the same read; answered now, they are answered too, in order. Everything the
 * blocking takes is here, from the visit handler's side (`loadNow`) through the cache's
 * (`BlockingLoads`) to the worker's (`remoteBlockingSource`, `blockOnPort`).
 */

/**
 * The longest a miss blocks its HTTP worker: a query takes a millisecond or so; a database
 * slower than this is struggling, and the worker's other visitors must not wait on it.
 */
const BLOCKING_BUDGET_MS = 50
/**
 * How long a worker may spend blocked on misses in a second. A blocked worker answers one miss at
 * a time (about 1,700 a second with two workers on the bench machine) where asynchronous misses
 * share queries (over 10,000): in a storm of misses (a cold start, a crawl) the rest of the
 * second's misses load asynchronously, batched.
 */
const BLOCKING_MS_PER_SECOND = 100

/**
 * A link or domain answered before the call returns, blocking this thread for at most `budgetMs`
 * (undefined: no answer in time; throws when the query failed). Only a source whose queries run
 * on another thread can offer it: an HTTP worker's, the main thread querying.
 */
export interface BlockingSource {
  readonly linkNow: (host: string, slug: string, budgetMs: number) => LinkRecord | null | undefined
  readonly domainNow: (host: string, budgetMs: number) => DomainRecord | null | undefined
}

/**
 * The domain and link of a request, loaded now where they were not cached (`link` null: the
 * domain's root; undefined: not cached). Undefined when the cache cannot answer now: then it is
 * answered later (PendingAnswers).
 */
export const loadNow = (
  cache: LinkCache,
  host: string,
  slug: string,
  cachedDomain: DomainEntry | undefined,
  cachedLink: LinkEntry | null | undefined
): { readonly domain: DomainEntry; readonly link: LinkEntry | null } | undefined => {
  const domain = cachedDomain ?? cache.loadDomainNow(host)
  if (domain === undefined) return undefined
  let link = cachedLink
  if (link === undefined && domain !== MISSING && domain.serving) {
    link = cache.mayExist(host, slug) === false ? MISSING : cache.loadLinkNow(host, slug)
    if (link === undefined) return undefined
  }
  // Undefined only for a domain that serves nothing, which answers 404 whatever the link.
  return { domain, link: link === undefined ? MISSING : link }
}

/** A cache's blocking loads, within BLOCKING_MS_PER_SECOND. */
export class BlockingLoads {
  /** Misses answered by blocking for the query. */
  count = 0
  /** Counts the change events and resets applied: a blocking load that spans one is not cached. */
  private changes = 0
  private second = 0
  private blockedMs = 0

  changed(): void {
    this.changes++
  }

  /**
   * The entry loaded by `query` before returning, and cached. Undefined while the database is
   * failing (`down`: a visitor then gets the last known answer without waiting), when a load of
   * the key is under way, when the second's budget is spent, or when no answer came in time.
   */
  load<T extends {}>(entries: Entries<T>, loads: EntryLoads<T>, down: boolean, key: string, query: (budgetMs: number) => T | undefined): T | undefined {
    if (down || loads.loading(key)) return undefined
    const started = performance.now()
    const second = Math.floor(started / 1000)
    if (second !== this.second) {
      this.second = second
      this.blockedMs = 0
    }
    if (this.blockedMs >= BLOCKING_MS_PER_SECOND) return undefined
    const changes = this.changes
    this.count++
    let value: T | undefined
    try {
      value = query(BLOCKING_BUDGET_MS)
    } catch {
      // The asynchronous load that follows asks again, through the guard that counts, logs and
      // falls back to the last known answer.
      return undefined
    } finally {
      this.blockedMs += performance.now() - started
    }
    // Change events handled while it waited may be newer than its answer: served once, not kept.
    if (value !== undefined && this.changes === changes) entries.set(key, value)
    return value
  }
}

/**
 * Blocks until `answered()` or `budgetMs` passed; true when answered. What the main thread sends
 * meanwhile is handled as it would be by the event loop, which does not run while this waits.
 */
export type Block = (answered: () => boolean, budgetMs: number) => boolean

/**
 * An HTTP worker's Block: waits on `answered` (the main thread adds to it and notifies after each
 * answer it posts), taking what arrives on `port` and handing it to `handle`, in order (change
 * events included).
 */
export const blockOnPort = (port: MessagePort, answered: Int32Array, handle: (message: unknown) => void): Block => (done, budgetMs) => {
  const deadline = performance.now() + budgetMs
  while (true) {
    // Read before draining: an answer posted after the drain moves it on, so the wait returns at once.
    const seen = Atomics.load(answered, 0)
    for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) handle(next.message)
    if (done()) return true
    const left = deadline - performance.now()
    if (left <= 0) return false
    Atomics.wait(answered, 0, seen, left)
  }
}

/** Calls to the main thread: `call` gets a fresh id, `answer` the main thread's answer to it (RemoteSource). */
export interface SourceCalls {
  readonly post: (call: (id: number) => SourceCall, answer: (message: SourceAnswer) => void) => void
}

/** A worker's BlockingSource: its call to the main thread, then `block` until the answer (a later one is dropped). */
export const remoteBlockingSource = (calls: SourceCalls, block: Block): BlockingSource => {
  const askNow = <T>(call: (id: number) => SourceCall, read: (message: SourceAnswer) => T, budgetMs: number): T | undefined => {
    let answer: SourceAnswer | undefined
    calls.post(call, (message) => {
      answer = message
    })
    if (!block(() => answer !== undefined, budgetMs)) return undefined
    const received = answer!
    if (received.type === "sourceFailed") throw new Error(received.error)
    return read(received)
  }
  return {
    linkNow: (host, slug, budgetMs) => askNow((id) => ({ type: "link", id, host, slug }), (m) => (m.type === "link" ? m.record : null), budgetMs),
    domainNow: (host, budgetMs) => askNow((id) => ({ type: "domain", id, host }), (m) => (m.type === "domain" ? m.record : null), budgetMs)
  }
}
