/** What a failed call shows: the spec's error body, in words, with the fields it concerns. */
export interface FieldIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  readonly code: string
}

export interface ApiFailure {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly issues: ReadonlyArray<FieldIssue>
}

export type Outcome<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly failure: ApiFailure }

export const failed = (status: number, code: string, message: string, issues: ReadonlyArray<FieldIssue> = []): ApiFailure => ({
  status,
  code,
  message,
  issues
})

/** Reads `{ error: { code, message, issues? } }`; anything else is described by its status. */
export const failureFromBody = (status: number, body: unknown): ApiFailure => {
  const error = (body as { error?: { code?: unknown; message?: unknown; issues?: unknown } } | null)?.error
  if (error !== undefined && typeof error.code === "string" && typeof error.message === "string") {
    return failed(status, error.code, error.message, Array.isArray(error.issues) ? (error.issues as Array<FieldIssue>) : [])
  }
  return failed(status, "internal_server_error", `The server answered ${status}`)
}

/**
 * The messages of the issues at `field` (a dotted path such as `geoRules.0.url`) or, unless
 * `exact`, under it; each message once (a nullable field's schema can say the same thing twice).
 */
export const issuesAt = (failure: ApiFailure | undefined, field: string, exact = false): Array<string> =>
  failure === undefined
    ? []
    : [...new Set(failure.issues.filter((issue) => {
      const path = issue.path.join(".")
      return path === field || (!exact && path.startsWith(field + "."))
    }).map((issue) => issue.message))]

/**
 * A 401 on any call means the session ended (expired, signed out elsewhere, key revoked): the app
 * goes back to the sign-in page instead of showing every page's error.
 */
const unauthorizedListeners = new Set<() => void>()
export const onUnauthorized = (listener: () => void) => {
  unauthorizedListeners.add(listener)
  return () => {
    unauthorizedListeners.delete(listener)
  }
}
export const reportFailure = (failure: ApiFailure): ApiFailure => {
  if (failure.status === 401) unauthorizedListeners.forEach((l) => l())
  return failure
}
