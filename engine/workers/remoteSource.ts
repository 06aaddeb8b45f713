import type { SourceAnswer, SourceCall } from "../../shared/engine/httpWorkerMessages.ts"
import type { DomainRecord, LinkRecord } from "../../shared/links/linkRecord.ts"
import type { SourceCalls } from "../cache/blockingMiss.ts"
import type { LinkSource } from "../cache/linkSource.ts"

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
 * The same calls answered by blocking the worker: `post` for engine/cache/blockingMiss.ts.
 */
export class RemoteSource implements LinkSource, SourceCalls {
  private nextId = 0
  private readonly waiting = new Map<number, Waiting>()

  constructor(private readonly send: (call: SourceCall) => void) {}

  /** An answer from the main thread; one for a call that was given up on is ignored. */
  answer(message: SourceAnswer): void {
    this.waiting.get(message.id)?.answer(message)
  }

  /** One call, with a fresh id; `answer` gets its one answer. */
  readonly post = (call: (id: number) => SourceCall, answer: (message: SourceAnswer) => void): void => {
    const id = this.nextId++
    this.waiting.set(id, {
      answer: (message) => {
        this.waiting.delete(id)
        answer(message)
      }
    })
    this.send(call(id))
  }

  private ask<T>(call: (id: number) => SourceCall, read: (message: SourceAnswer) => T): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.post(call, (message) => {
        if (message.type === "sourceFailed") reject(new Error(message.error))
        else resolve(read(message))
      })
    )
  }

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
