/**
 * What the OpenAPI generator cannot know from the schemas, added to its document.
 *
 * The headers the Admission middleware puts on every /v1 answer, described in the OpenAPI
 * document on every response (the library documents what schemas declare; these come from a
 * middleware). A 503 (database unavailable) carries Retry-After only, declared by its schema.
 */

const integer = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } })

export const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": integer("Requests allowed per minute in the allowance this request was counted in (on analytics requests, the analytics allowance)"),
  "RateLimit-Remaining": integer("Requests left in that allowance in the current window"),
  "RateLimit-Reset": integer("Seconds until the window resets")
}

const RETRY_AFTER = integer("Seconds until the allowance's window resets")

const SESSION_SCHEME = {
  type: "apiKey",
  in: "cookie",
  name: "ricochet_session",
  description: "The session cookie POST /v1/sessions sets; unsafe methods also need an Origin header of this site"
}

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` })

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"]

/**
 * Adds the session cookie as a second way in, the RateLimit-* headers (and a 429's Retry-After) to every response, and describes form
 * bodies by the JSON body's schema: the same fields, sent as form values (brackets or JSON in a
 * field), rather than the generator's all-text rendering of them.
 */
export const refineDocument = (spec: Record<string, any>): Record<string, any> => {
  spec.components.headers = { ...spec.components.headers, ...RATE_LIMIT_HEADERS, "Retry-After": RETRY_AFTER }
  spec.components.securitySchemes = { ...spec.components.securitySchemes, session: SESSION_SCHEME }
  for (const item of Object.values<Record<string, any>>(spec.paths)) {
    for (const operation of Object.values<Record<string, any>>(item)) {
      // The Admission middleware reads the key or the session cookie; it declares the key only.
      if (operation.security?.some((entry: Record<string, unknown>) => "bearer" in entry)) operation.security = [{ bearer: [] }, { session: [] }]
      const content = operation.requestBody?.content
      if (content?.["application/json"] !== undefined) {
        for (const type of FORM_TYPES) if (content[type] !== undefined) content[type] = { schema: content["application/json"].schema }
      }
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses ?? {})) {
        if (status === "503") continue
        const headers: Record<string, unknown> = {}
        for (const name of Object.keys(RATE_LIMIT_HEADERS)) headers[name] = ref(name)
        if (status === "429") headers["Retry-After"] = ref("Retry-After")
        response.headers = { ...headers, ...response.headers }
      }
    }
  }
  return spec
}
