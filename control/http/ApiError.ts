import { Data } from "effect"

/** The error codes of the spec, with the HTTP status design.md gives each. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  plan_required: 403,
  limit_reached: 403,
  not_found: 404,
  conflict: 409,
  unprocessable_entity: 422,
  rate_limit_exceeded: 429,
  internal_server_error: 500
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/** One field problem, as `issues` carries it. */
export interface FieldIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  readonly code: string
}

/** Every failure a client may see is one of these; `toErrorBody` is the only place it becomes HTTP. */
export class ApiError extends Data.TaggedError("ApiError")<{
  readonly code: ErrorCode
  readonly message: string
  readonly issues?: ReadonlyArray<FieldIssue>
  /** A status other than the code's: 503 when a dependency is unavailable (the spec has no code for it). */
  readonly httpStatus?: number
  /** Sent as Retry-After, seconds. */
  readonly retryAfterSeconds?: number
}> {
  get status(): number {
    return this.httpStatus ?? ERROR_STATUS[this.code]
  }
}

export const apiError = (code: ErrorCode, message: string, issues?: ReadonlyArray<FieldIssue>): ApiError =>
  new ApiError(issues === undefined ? { code, message } : { code, message, issues })

export const fieldError = (path: ReadonlyArray<string | number>, message: string, code = "invalid_value"): ApiError =>
  apiError("unprocessable_entity", `Invalid request: ${message}`, [{ path, message, code }])

export const notFound = (what: string): ApiError => apiError("not_found", `${what} not found`)

/** How long a client is asked to wait before retrying after a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

/**
 * The database could not be reached or did not answer in time. The spec's codes are a closed list
 * without one for this: `internal_server_error`, with 503 and Retry-After saying it is temporary.
 */
export const databaseUnavailable = (): ApiError =>
  new ApiError({
    code: "internal_server_error",
    message: `The database is unavailable right now; retry in ${UNAVAILABLE_RETRY_AFTER_SECONDS} s`,
    httpStatus: 503,
    retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS
  })

export const toErrorBody = (error: ApiError) => ({
  error: error.issues === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, issues: error.issues }
})
