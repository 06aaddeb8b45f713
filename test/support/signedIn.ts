/** An answer of the API, its body parsed (undefined when empty). */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

export interface BrowserRequest {
  readonly cookie?: string
  readonly body?: unknown
  /** This site's origin unless told otherwise; null sends none. */
  readonly origin?: string | null
  readonly headers?: Record<string, string>
}

/**
 * Requests as the dashboard makes them, to the API at `baseUrl`: the session cookie, this site's
 * Origin on unsafe methods unless told otherwise, JSON bodies.
 */
export const signedInClient = (baseUrl: string) => {
  const request = async (method: string, path: string, options: BrowserRequest = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.cookie !== undefined) headers.cookie = options.cookie
    if (options.origin !== null && method !== "GET") headers.origin = options.origin ?? baseUrl
    if (options.body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) })
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) }
  }
  /** The session cookie a sign-in set, as the next request sends it. */
  const cookieOf = (res: Answer): string => {
    const header = res.headers.get("set-cookie")
    if (header === null) throw new Error(`no Set-Cookie in ${res.status} ${JSON.stringify(res.body)}`)
    return header.split(";")[0]!
  }
  return {
    request,
    cookieOf,
    /** A signed-in session's calls: its cookie on every request. */
    session: (cookie: string) => ({
      get: (path: string) => request("GET", path, { cookie }),
      post: (path: string, body?: unknown) => request("POST", path, { cookie, body }),
      patch: (path: string, body?: unknown) => request("PATCH", path, { cookie, body }),
      delete: (path: string) => request("DELETE", path, { cookie })
    }),
    /** POST /v1/sessions, with extra fields of the body (a workspaceId) when given. */
    signIn: (email: string, password: string, extra: Record<string, unknown> = {}) =>
      request("POST", "/v1/sessions", { body: { email, password, ...extra } })
  }
}
