/**
 * The database could not answer in time: the caller serves its last known answer, or a
 * "temporarily unavailable" page. Never a "not found".
 */
export class SourceUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = "SourceUnavailable"
  }
}

export interface SourceGuardOptions {
  /** A call with no answer after this long fails (the query itself may still finish later). */
  readonly timeoutMs: number
  /**
   * Calls started and not yet settled, timed-out ones included. Past this the database is not
   * keeping up (or hangs), and more calls would only queue behind the others: fail at once.
   */
  readonly maxOutstanding: number
}

/**
 * Bounds the engine's database calls so a visitor is answered within seconds whatever the
 * database does: refusing, failing, or hanging behind a stalled network. Logs when the database
 * stops answering and when it is back, once each, rather than once per request.
 */
export class SourceGuard {
  private outstanding = 0
  private failing = false
  /** Calls that failed, timed out or were refused for too many outstanding ones. */
  failures = 0

  constructor(private readonly options: SourceGuardOptions) {}

  /** A call failed (or timed out) and none has succeeded since. */
  get down(): boolean {
    return this.failing
  }

  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.outstanding >= this.options.maxOutstanding) {
      return Promise.reject(this.failed(new SourceUnavailable(`${this.outstanding} database calls are still waiting for an answer`)))
    }
    this.outstanding++
    let settled: Promise<T>
    try {
      settled = call()
    } catch (error) {
      settled = Promise.reject(error)
    }
    return new Promise<T>((resolve, reject) => {
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        reject(this.failed(new SourceUnavailable(`the database did not answer within ${this.options.timeoutMs} ms`)))
      }, this.options.timeoutMs)
      settled.then(
        (value) => {
          this.outstanding--
          if (timedOut) return
          clearTimeout(timer)
          if (this.failing) {
            this.failing = false
            console.log("engine: the database answers again")
          }
          resolve(value)
        },
        (error) => {
          this.outstanding--
          if (timedOut) return
          clearTimeout(timer)
          reject(this.failed(new SourceUnavailable(`database call failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })))
        }
      )
    })
  }

  private failed(error: SourceUnavailable): SourceUnavailable {
    this.failures++
    if (!this.failing) {
      this.failing = true
      console.error(`engine: ${error.message}; serving last known answers until it answers again`)
    }
    return error
  }
}
