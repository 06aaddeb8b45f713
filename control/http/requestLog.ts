import type { RequestLogSettings } from "./RequestLogSettings.ts"

/**
 * Which log lines an answered API request makes, and what they say. Pure: requestObservation.ts
 * writes them through the process's logger, which scrubs every string of secrets (API keys,
 * session and unlock cookies, bearer tokens, password/token/secret query parameters).
 *
 * - A 5xx answer but a 503: one error line. A 503 is the expected answer while the database is
 *   away or a queue is full (said once per outage by control/db/sql.ts, and by the job or queue):
 *   a line per request would bury everything else an outage logs (the access log has them).
 * - An answer later than RICOCHET_SLOW_REQUEST_MS (0: never): one warn line.
 * - With RICOCHET_ACCESS_LOG: one info line per request besides.
 *
 * Each carries the request id, the method, the route (the declared path template, as the metrics
 * count it) and the path as asked (ids and query included, which a person looking for one request
 * needs; logs are not metrics, where an id would make a series of its own), the status and the
 * duration. The access line adds the client address (as the rate limits see it) and the body's
 * size when it is known before sending.
 */

export interface AnsweredRequest {
  readonly requestId: string
  readonly method: string
  /** Path and query, as requested. */
  readonly path: string
  readonly route: string
  readonly status: number
  readonly durationMs: number
  readonly client: string
  /** The answer body's bytes, when known before it is sent (not for a stream). */
  readonly bytes: number | undefined
}

export interface RequestLogLine {
  readonly level: "info" | "warn" | "error"
  readonly message: string
  readonly fields: Readonly<Record<string, unknown>>
}

export const requestLogLines = (answered: AnsweredRequest, settings: RequestLogSettings["Service"]): Array<RequestLogLine> => {
  const durationMs = Math.round(answered.durationMs * 10) / 10
  const fields = {
    requestId: answered.requestId,
    method: answered.method,
    route: answered.route,
    path: answered.path,
    status: answered.status,
    durationMs
  }
  const lines: Array<RequestLogLine> = []
  if (answered.status >= 500 && answered.status !== 503) {
    lines.push({ level: "error", message: `request answered ${answered.status}`, fields })
  } else if (settings.slowRequestMs > 0 && answered.durationMs > settings.slowRequestMs) {
    lines.push({ level: "warn", message: `slow request: answered after ${durationMs} ms`, fields })
  }
  if (settings.accessLog) {
    lines.push({
      level: "info",
      message: "request",
      fields: { ...fields, client: answered.client, ...(answered.bytes === undefined ? {} : { bytes: answered.bytes }) }
    })
  }
  return lines
}
