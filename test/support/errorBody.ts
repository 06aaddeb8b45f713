/**
 * What every refusal of the API must look like (docs/api.md#errors and #rate-limits): a JSON body of
 * exactly `{ error: { code, message, issues? } }` with a code of the spec, and the rate-limit
 * headers. Returns what is wrong, or undefined.
 */

export const ERROR_CODES = [
  "bad_request", "unauthorized", "forbidden", "plan_required", "limit_reached", "not_found", "conflict",
  "unprocessable_entity", "rate_limit_exceeded", "internal_server_error"
] as const

const RATE_LIMIT_HEADERS = ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"] as const

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

const isIssue = (issue: unknown): boolean => {
  if (issue === null || typeof issue !== "object") return false
  const { path, message, code } = issue as Record<string, unknown>
  return Object.keys(issue).sort().join() === "code,message,path" && Array.isArray(path) &&
    path.every((p) => typeof p === "string" || typeof p === "number") && typeof message === "string" && typeof code === "string"
}

/** Every answer: a JSON content type and, unless told otherwise, the three RateLimit headers. */
export const headersProblem = (answer: Answer, options: { readonly rateLimitHeaders?: boolean } = {}): string | undefined => {
  if (!/^application\/json\b/.test(answer.headers.get("content-type") ?? "")) {
    return `content-type ${JSON.stringify(answer.headers.get("content-type"))}`
  }
  if (options.rateLimitHeaders !== false) {
    const missing = RATE_LIMIT_HEADERS.filter((h) => !/^\d+$/.test(answer.headers.get(h) ?? ""))
    if (missing.length > 0) return `no ${missing.join(", ")} header`
  }
  return undefined
}

export const errorBodyProblem = (answer: Answer, options: { readonly rateLimitHeaders?: boolean } = {}): string | undefined => {
  const headers = headersProblem(answer, options)
  if (headers !== undefined) return headers
  let body: unknown
  try {
    body = JSON.parse(answer.text)
  } catch {
    return `a body that is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`
  }
  if (body === null || typeof body !== "object" || Object.keys(body).join() !== "error") return `body ${answer.text.slice(0, 300)}`
  const error = (body as { error: unknown }).error
  if (error === null || typeof error !== "object") return `error ${JSON.stringify(error)}`
  const { code, message, issues } = error as Record<string, unknown>
  const keys = Object.keys(error)
  if (!keys.every((k) => k === "code" || k === "message" || k === "issues")) return `error keys ${keys.join()}`
  if (!(ERROR_CODES as ReadonlyArray<unknown>).includes(code)) return `code ${JSON.stringify(code)}`
  if (typeof message !== "string" || message === "") return `message ${JSON.stringify(message)}`
  if (issues !== undefined && !(Array.isArray(issues) && issues.every(isIssue))) return `issues ${JSON.stringify(issues).slice(0, 300)}`
  return undefined
}
