import type { SourceCall, ToHttpWorker } from "../../shared/engine/httpWorkerMessages.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import type { LinkSource } from "../cache/linkSource.ts"

type SourceAnswer = Extract<ToHttpWorker, { type: "link" | "links" | "domain" | "slugs" | "sourceFailed" | "lastKnownLink" | "lastKnownDomain" }>

interface Waiting {
  readonly answer: (message: SourceAnswer) => void
}

/**
 * A worker's LinkSource: each call is a message to the main thread, which holds the database
 * connections (one pool per engine however many workers, and the embedded database works too),
 * and its answer a message back. Failures come back as errors, which the cache's source guard
 * treats as any failed query (last known answer, or 503). A domain's slugs stream back in chunks.
 * The main thread also keeps the last answer any worker got for each key: the cache asks for it
 * when the database fails and it has none of its own (another worker may have known the key).
 *
 * `linkNow` and `domainNow` wait for the answer by blocking the worker (`block`: the main thread
 * wakes it after each answer), so a miss can be answered before its request handler returns.
 */
export class RemoteSource implements LinkSource {
  private nextId = 0
  private readonly waiting = new Map<number, Waiting>()

  /**
   * `block(answered, budgetMs)` blocks this thread, handling what the main thread sends meanwhile,
   * until `answered()` or the budget is spent; true when answered.
   */
  constructor(
    private readonly send: (call: SourceCall) => void,
    private readonly block: (answered: () => boolean, budgetMs: number) => boolean
  ) {}

  /** An answer from the main thread; one for a call that was given up on is ignored. */
  answer(message: SourceAnswer): void {
    this.waiting.get(message.id)?.answer(message)
  }

  private ask<T>(call: (id: number) => SourceCall, read: (message: SourceAnswer) => T): Promise<T> {
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, {
        answer: (message) => {
          this.waiting.delete(id)
          if (message.type === "sourceFailed") reject(new Error(message.error))
          else resolve(read(message))
        }
      })
      this.send(call(id))
    })
  }

  /** One call answered before returning; undefined when no answer came within the budget (a later one is dropped). */
  private askNow<T>(call: (id: number) => SourceCall, read: (message: SourceAnswer) => T, budgetMs: number): T | undefined {
    const id = this.nextId++
    let answer: SourceAnswer | undefined
    this.waiting.set(id, {
      answer: (message) => {
        this.waiting.delete(id)
        answer = message
      }
    })
    this.send(call(id))
    if (!this.block(() => answer !== undefined, budgetMs)) return undefined
    const received = answer!
    if (received.type === "sourceFailed") throw new Error(received.error)
    return read(received)
  }

  readonly linkNow = (host: string, slug: string, budgetMs: number): LinkRecord | null | undefined =>
    this.askNow((id) => ({ type: "link", id, host, slug }), (m) => (m.type === "link" ? m.record : null), budgetMs)

  readonly domainNow = (host: string, budgetMs: number): DomainRecord | null | undefined =>
    this.askNow((id) => ({ type: "domain", id, host }), (m) => (m.type === "domain" ? m.record : null), budgetMs)

  readonly link = (host: string, slug: string): Promise<LinkRecord | null> =>
    this.ask((id) => ({ type: "link", id, host, slug }), (m) => (m.type === "link" ? m.record : null))

  readonly links = (keys: ReadonlyArray<{ readonly host: string; readonly slug: string }>): Promise<Map<string, LinkRecord>> =>
    this.ask(
      (id) => ({ type: "links", id, keys: keys.map(({ host, slug }) => ({ host, slug })) }),
      (m) => new Map(m.type === "links" ? m.records.map((record) => [`${record.host}\n${record.slug}`, record]) : [])
    )

  readonly domain = (host: string): Promise<DomainRecord | null> =>
    this.ask((id) => ({ type: "domain", id, host }), (m) => (m.type === "domain" ? m.record : null))

  readonly lastKnownLink = (host: string, slug: string): Promise<LinkRecord | null | undefined> =>
    this.ask((id) => ({ type: "lastKnownLink", id, host, slug }), (m) => (m.type === "lastKnownLink" ? m.record : undefined))

  readonly lastKnownDomain = (host: string): Promise<DomainRecord | null | undefined> =>
    this.ask((id) => ({ type: "lastKnownDomain", id, host }), (m) => (m.type === "lastKnownDomain" ? m.record : undefined))

  readonly slugs = (host: string): AsyncIterable<ReadonlyArray<string>> => {
    const waiting = this.waiting
    const send = this.send
    const id = this.nextId++
    return {
      async *[Symbol.asyncIterator]() {
        const chunks: Array<ReadonlyArray<string>> = []
        let done = false
        let failure: Error | undefined
        let wake: (() => void) | undefined
        waiting.set(id, {
          answer: (message) => {
            if (message.type === "slugs") {
              chunks.push(message.slugs)
              done = message.done
            } else failure = new Error(message.type === "sourceFailed" ? message.error : `unexpected ${message.type} answer`)
            wake?.()
          }
        })
        send({ type: "slugs", id, host })
        try {
          while (true) {
            const chunk = chunks.shift()
            if (chunk !== undefined) {
              yield chunk
              continue
            }
            if (failure !== undefined) throw failure
            if (done) return
            await new Promise<void>((resolve) => (wake = resolve))
            wake = undefined
          }
        } finally {
          // Also when the cache abandons a listing that takes too long: later chunks are ignored.
          waiting.delete(id)
        }
      }
    }
  }
}
