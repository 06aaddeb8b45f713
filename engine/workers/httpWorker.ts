import { parentPort, workerData } from "node:worker_threads"
import { type FromHttpWorker, ToHttpWorker } from "../../shared/engine/httpWorkerMessages.ts"
import { installConsoleLogging } from "../../shared/logging/installLogging.ts"
import { receiver } from "../../shared/messages/receiver.ts"
import { blockOnPort, remoteBlockingSource } from "../cache/blockingMiss.ts"
import { LinkCache } from "../cache/linkCache.ts"
import { makeGeoLookup } from "../geo/geo.ts"
import { startEngineServer } from "../http/server.ts"
import { AnswerCounts } from "../ops/answerCounts.ts"
import { statsOf } from "../ops/engineStatus.ts"
import type { PasswordAttempts } from "../password/unlock.ts"
import { ClickForwarder } from "./clickForwarder.ts"
import type { HttpWorkerOptions } from "./httpWorkerOptions.ts"
import { RemoteSource } from "./remoteSource.ts"

/**
 * One HTTP worker thread of the engine (engine/workers/httpWorkers.ts starts them): a
 * uWebSockets.js app on the engine's port (the kernel spreads connections over the workers'
 * listening sockets), with its own cache and slug filters. The main thread answers its cache's
 * queries, fans the bus's change events out to it, and takes its clicks to the one writer.
 */
installConsoleLogging()
const options = workerData as HttpWorkerOptions
const port = parentPort!
const send = (message: FromHttpWorker) => port.postMessage(message)
const receive = receiver("engine HTTP worker", ToHttpWorker)

const source = new RemoteSource((call) => send({ type: "source", call }))
// A miss answered before its request handler returns: this thread blocks for the main thread's
// answer, handling what else it sends meanwhile (engine/cache/blockingMiss.ts).
const blocking = remoteBlockingSource(source, blockOnPort(port, new Int32Array(options.answered), handle))
const cache = new LinkCache(source, options.cache, blocking)
cache.setBusState(options.busState)
const answers = new AnswerCounts()
const clicks = new ClickForwarder((batch) => send({ type: "clicks", clicks: batch }))
const geo = makeGeoLookup(options.geo)

// Answers the main thread owes this worker, by id: the status page and password guess counts.
let nextId = 0
type Answer = Extract<ToHttpWorker, { type: "status" | "attemptBlocked" | "attemptCounted" }>
const waiters = new Map<number, (answer: Answer) => void>()
/** Sends a question carrying a fresh id; resolves with what `read` takes from its answer. */
const ask = <T>(question: (id: number) => FromHttpWorker, read: (answer: Answer) => T) =>
  new Promise<T>((resolve) => {
    const id = nextId++
    waiters.set(id, (answer) => resolve(read(answer)))
    send(question(id))
  })
const status = () => ask((id) => ({ type: "status", id }), (answer) => (answer.type === "status" ? answer.json : "{}"))
const attempts: PasswordAttempts = {
  blocked: (key) => ask((id) => ({ type: "attemptBlocked", id, key }), (answer) => answer.type === "attemptBlocked" && answer.blocked),
  failed: (key) => ask((id) => ({ type: "attemptFailed", id, key }), () => undefined)
}

let server: Awaited<ReturnType<typeof startEngineServer>>
try {
  server = await startEngineServer({
    host: options.host,
    port: options.port,
    cache,
    clicks,
    geo,
    secret: options.secret,
    trustProxy: options.trustProxy,
    linkScheme: options.linkScheme,
    answers,
    status,
    attempts
  })
} catch (error) {
  send({ type: "failed", error: error instanceof Error ? error.message : String(error) })
  port.close()
  throw error
}

/** One message from the main thread. */
function handle(received: unknown): void {
  const message = receive(received)
  if (message === undefined) return
  switch (message.type) {
    case "change":
      return cache.apply(message.event)
    case "reset":
      return cache.reset()
    case "warmFilter":
      return cache.warmFilter(message.host)
    case "loaded":
      return cache.prefill(message)
    case "busState":
      return cache.setBusState(message.connected ? { connected: true } : { connected: false, since: message.since })
    case "link":
    case "links":
    case "domain":
    case "slugs":
    case "sourceFailed":
    case "lastKnownLink":
    case "lastKnownDomain":
      return source.answer(message)
    case "stats":
      return send({ type: "stats", id: message.id, stats: statsOf(cache, answers) })
    case "attemptCounted":
    case "attemptBlocked":
    case "status": {
      const waiter = waiters.get(message.id)
      waiters.delete(message.id)
      return waiter?.(message)
    }
    case "stop":
      void server.stop().then(() => {
        clicks.flush()
        send({ type: "stopped" })
      })
      return
  }
}

port.on("message", handle)
send({ type: "listening", port: server.port })
