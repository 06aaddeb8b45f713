import { Worker } from "node:worker_threads"
import { workerEntry } from "../../../shared/build/modulePaths.ts"
import { FromQrWorker, type QrRenderOptions, type RenderedQr, type ToQrWorker } from "../../../shared/qr/qrWorkerMessages.ts"
import { receiver } from "../../../shared/messages/receiver.ts"
import { FairQueue } from "./fairQueue.ts"

export interface QrRenderPoolOptions {
  /** Render threads: each draws one code at a time. */
  readonly threads: number
  /** Renders waiting for a thread, all workspaces together. */
  readonly maxWaiting: number
  /** Renders of one workspace waiting or being drawn. */
  readonly maxPerWorkspace: number
  /** A render not answered by then: its thread is stopped (and replaced), the render answered as lost. */
  readonly renderTimeoutMs?: number
  /** A render still waiting for a thread by then is given up. */
  readonly waitTimeoutMs?: number
  /** The thread's entry module; tests pass one that misbehaves on purpose. */
  readonly entry?: URL
  /** Every image drawn, whether or not anyone still waits for it (the cache keeps it). */
  readonly onRendered?: (key: string, image: RenderedQr) => void
}

export interface RenderRequest {
  readonly workspaceId: string
  /** Identical requests (qrCache.ts's key) share one render. */
  readonly key: string
  readonly text: string
  readonly options: QrRenderOptions
}

/** Why a render was not drawn; each but `refused` is a 503 with Retry-After. */
export type NotRendered =
  | "queueFull"
  | "workspaceFull"
  | "waitedTooLong"
  | "threadLost"
  | "stopped"

export type RenderOutcome =
  | { readonly ok: true; readonly image: RenderedQr }
  | { readonly ok: false; readonly reason: NotRendered }
  /** The renderer refused the text itself (longer than a code holds). */
  | { readonly ok: false; readonly reason: "refused"; readonly error: string }

type Waiter = (outcome: RenderOutcome) => void

interface Job {
  readonly id: number
  readonly request: RenderRequest
  readonly waiters: Set<Waiter>
  waitTimer: NodeJS.Timeout | undefined
  running: boolean
}

interface Thread {
  readonly worker: Worker
  ready: boolean
  job: Job | undefined
  renderTimer: NodeJS.Timeout | undefined
  /** Terminated for holding a render past the render timeout. */
  hung: boolean
}

const RENDER_TIMEOUT_MS = 30_000
const WAIT_TIMEOUT_MS = 30_000
/** A thread that died is replaced after this; one that died before it was ready, after longer (it would likely fail again). */
const RESTART_MS = 1_000
const RESTART_UNREADY_MS = 10_000
const ENTRY = workerEntry(import.meta.url, "qrWorker")

/** What the render threads send, decoded before it is trusted. */
const receiveFromThread = receiver("QR render thread (to the main thread)", FromQrWorker)

const noop = () => {}

/**
 * Control's QR render threads (docs/architecture.md): drawing a code is CPU work (half a second
 * for a 2048-pixel PNG) that on the event loop would hold every other request, so it is done by
 * a few threads of lower priority, fed from a bounded queue that is fair across workspaces
 * (fairQueue.ts). A request the queue has no room for, or its workspace no share left, is
 * answered at once (a 503), never queued without bound. Identical requests share one render.
 *
 * Every render is answered: a thread that dies or hangs past the render timeout is replaced and
 * its render answered as lost, a render that waits past the wait timeout is given up, and
 * stopping answers what is left.
 */
export class QrRenderPool {
  private readonly threads: Array<Thread | undefined> = []
  private readonly queue: FairQueue<Job>
  /** Renders waiting or being drawn, by key: a request for one of them waits for it too. */
  private readonly jobs = new Map<string, Job>()
  private nextId = 0
  private started = false
  private stopping = false
  /** Threads replaced after dying or hanging, since the start. */
  restarts = 0

  private constructor(private readonly options: QrRenderPoolOptions) {
    this.queue = new FairQueue(options.maxWaiting, options.maxPerWorkspace)
  }

  /**
   * The pool; its threads start with the first render (each loads for a second or so, and holds
   * tens of MB, which a control whose codes nobody asks for need not spend). Renders asked for
   * before they are ready wait for them.
   */
  static start(options: QrRenderPoolOptions): QrRenderPool {
    return new QrRenderPool(options)
  }

  /** Renders waiting for a thread and being drawn, and the threads ready to draw. */
  get counts(): { readonly waiting: number; readonly running: number; readonly ready: number } {
    return {
      waiting: this.queue.waiting,
      running: this.threads.filter((t) => t?.job !== undefined).length,
      ready: this.threads.filter((t) => t?.ready === true).length
    }
  }

  /**
   * Draws the code, or says at once why it will not; `done` is called exactly once, unless the
   * returned function is called first (the requester gave up: a render nobody else waits for is
   * withdrawn from the queue).
   */
  render(request: RenderRequest, done: Waiter): () => void {
    if (this.stopping) {
      done({ ok: false, reason: "stopped" })
      return noop
    }
    let job = this.jobs.get(request.key)
    if (job === undefined) {
      const fresh: Job = { id: this.nextId++, request, waiters: new Set([done]), waitTimer: undefined, running: false }
      const offered = this.queue.offer(request.workspaceId, fresh)
      if (offered !== "queued") {
        done({ ok: false, reason: offered === "full" ? "queueFull" : "workspaceFull" })
        return noop
      }
      job = fresh
      this.jobs.set(request.key, job)
      job.waitTimer = setTimeout(() => this.giveUp(fresh), this.options.waitTimeoutMs ?? WAIT_TIMEOUT_MS)
      if (!this.started) {
        this.started = true
        for (let i = 0; i < this.options.threads; i++) this.spawn(i)
      }
      this.dispatch()
    } else {
      job.waiters.add(done)
    }
    const joined = job
    return () => {
      joined.waiters.delete(done)
      if (joined.waiters.size === 0 && !joined.running && this.queue.remove(joined.request.workspaceId, joined)) this.forget(joined)
    }
  }

  /** Answers every render left as stopped and ends the threads. */
  async stop(): Promise<void> {
    this.stopping = true
    for (const job of [...this.jobs.values()]) this.finish(job, { ok: false, reason: "stopped" })
    await Promise.all(this.threads.map((thread) => {
      if (thread === undefined) return
      clearTimeout(thread.renderTimer)
      thread.job = undefined
      return thread.worker.terminate().catch(noop)
    }))
  }

  private spawn(index: number): void {
    const worker = new Worker(this.options.entry ?? ENTRY)
    const thread: Thread = { worker, ready: false, job: undefined, renderTimer: undefined, hung: false }
    this.threads[index] = thread
    worker.on("message", (raw: unknown) => {
      const message = receiveFromThread(raw)
      if (message !== undefined) this.receive(thread, message)
    })
    worker.on("error", (error) => console.error(`QR render thread ${index} failed`, error))
    worker.on("exit", (code) => this.exited(index, thread, code))
  }

  private receive(thread: Thread, message: FromQrWorker): void {
    if (message.type === "ready") {
      thread.ready = true
      return this.dispatch()
    }
    const job = thread.job
    // An answer for a render this thread no longer holds (given up meanwhile): nobody waits for it.
    if (job === undefined || job.id !== message.id) return
    clearTimeout(thread.renderTimer)
    thread.job = undefined
    if (message.type === "rendered") this.options.onRendered?.(job.request.key, message.image)
    this.finish(job, message.type === "rendered" ? { ok: true, image: message.image } : { ok: false, reason: "refused", error: message.error })
    this.dispatch()
  }

  /** Hands waiting renders to idle threads, the queue choosing whose turn it is. */
  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread === undefined || !thread.ready || thread.job !== undefined) continue
      const next = this.queue.take()
      if (next === undefined) return
      const job = next.item
      clearTimeout(job.waitTimer)
      job.running = true
      thread.job = job
      // A thread that hangs would hold its render, and every render after it, for ever.
      thread.renderTimer = setTimeout(() => {
        thread.hung = true
        void thread.worker.terminate()
      }, this.options.renderTimeoutMs ?? RENDER_TIMEOUT_MS)
      const message: ToQrWorker = { type: "render", id: job.id, text: job.request.text, options: job.request.options }
      thread.worker.postMessage(message)
    }
  }

  private giveUp(job: Job): void {
    if (!job.running && this.queue.remove(job.request.workspaceId, job)) this.answer(job, { ok: false, reason: "waitedTooLong" })
  }

  private exited(index: number, thread: Thread, code: number): void {
    clearTimeout(thread.renderTimer)
    if (this.threads[index] === thread) this.threads[index] = undefined
    if (thread.job !== undefined) this.finish(thread.job, { ok: false, reason: "threadLost" })
    thread.job = undefined
    if (this.stopping) return
    this.restarts++
    const delay = thread.ready ? RESTART_MS : RESTART_UNREADY_MS
    const why = thread.hung ? "was stopped: it held a render past the render timeout" : `exited (${code})${thread.ready ? "" : " before it was ready"}`
    console.error(`QR render thread ${index} ${why}; starting another in ${delay} ms`)
    setTimeout(() => {
      if (!this.stopping) this.spawn(index)
    }, delay).unref()
    this.dispatch()
  }

  /** A render is over: its workspace's share is freed, and everyone waiting for it answered. */
  private finish(job: Job, outcome: RenderOutcome): void {
    clearTimeout(job.waitTimer)
    if (job.running) this.queue.release(job.request.workspaceId)
    else this.queue.remove(job.request.workspaceId, job)
    this.answer(job, outcome)
  }

  private answer(job: Job, outcome: RenderOutcome): void {
    this.forget(job)
    const waiters = [...job.waiters]
    job.waiters.clear()
    for (const waiter of waiters) waiter(outcome)
  }

  private forget(job: Job): void {
    clearTimeout(job.waitTimer)
    if (this.jobs.get(job.request.key) === job) this.jobs.delete(job.request.key)
  }
}
