import { type Cause, Effect, ErrorReporter, Schema, SchemaTransformation } from "effect"
import { HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApiSchema } from "effect/http-api"
import { DatabaseUnavailable } from "./DatabaseUnavailable.ts"

/**
 * The errors of the API. Every failure a client can see is a tagged class that states its spec
 * code once (its HTTP status follows from the code, in STATUS below); its `response` schema turns it into exactly
 * `{ error: { code, message, issues? } }` with that status (and back, for the typed client), and
 * an endpoint lists the `response` schemas of the errors it can return. The cross-cutting ones
 * live here; the others beside their resource (`links/errors.ts`, …). A failure that is not the
 * API's own (DatabaseUnavailable) carries no status: its answer is given here.
 */

/** The spec's error codes, a closed list. */
export const ERROR_CODES = [
  "bad_request", "unauthorized", "forbidden", "plan_required", "limit_reached", "not_found", "conflict",
  "unprocessable_entity", "rate_limit_exceeded", "internal_server_error"
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/** One field problem, as `issues` carries it. */
export const FieldIssue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Int])),
  message: Schema.String,
  code: Schema.String
})
export type FieldIssue = typeof FieldIssue.Type

const ErrorFields = {
  message: Schema.String,
  issues: Schema.optionalKey(Schema.Array(FieldIssue))
}

/**
 * The HTTP status of each spec code: the one place a failure becomes a status. Codes share a
 * status (403 is forbidden, plan_required or limit_reached); an internal_server_error that asks the
 * client to retry (Retry-After) is temporary: 503, not 500.
 */
const STATUS: Record<ErrorCode, number> = {
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
}

/** The status an error of `spec` is answered with. */
export const statusOf = (spec: { readonly code: ErrorCode; readonly retryAfterSeconds?: number }): number =>
  spec.code === "internal_server_error" && spec.retryAfterSeconds !== undefined ? 503 : STATUS[spec.code]

interface ErrorSpec {
  readonly code: ErrorCode
  /** What the response means, for the OpenAPI document. */
  readonly description: string
  /** Sent as Retry-After (seconds) with every instance. */
  readonly retryAfterSeconds?: number
  /**
   * For errors that share a code on one endpoint (several 422s): the typed client takes a body
   * for this class only when its first issue has this code at this field.
   */
  readonly issue?: { readonly code: string; readonly field: string }
}

type WireBody = {
  readonly error: { readonly code: string; readonly message: string; readonly issues?: ReadonlyArray<FieldIssue> }
}

/** The instance's wire body; the only place an error becomes the spec's JSON. */
const toWireBody = (code: ErrorCode, error: { readonly message: string; readonly issues?: ReadonlyArray<FieldIssue> | undefined }): WireBody => ({
  error: error.issues === undefined ? { code, message: error.message } : { code, message: error.message, issues: error.issues }
})

const wireSchema = (spec: ErrorSpec) => {
  const body = Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(spec.code),
      message: Schema.String,
      issues: Schema.optionalKey(Schema.Array(FieldIssue))
    })
  })
  const { issue } = spec
  if (issue === undefined) return body
  return body.check(Schema.makeFilter((wire: typeof body.Type) => {
    const first = wire.error.issues?.[0]
    return (first?.code === issue.code && first.path[0] === issue.field) || `Expected a ${issue.code} issue at ${issue.field}`
  }))
}

type ErrorInstance = { readonly message: string; readonly issues?: ReadonlyArray<FieldIssue> | undefined }

const responseSchemas = new WeakMap<object, Schema.Top>()

const makeResponseSchema = (cls: new(props: ErrorInstance) => ErrorInstance, spec: ErrorSpec, wireMessage?: string): Schema.Top => {
  const wireOf = (error: unknown) => toWireBody(spec.code, wireMessage === undefined ? error as ErrorInstance : { message: wireMessage })
  const fromWire = (wire: WireBody) =>
    new cls(wire.error.issues === undefined ? { message: wire.error.message } : { message: wire.error.message, issues: wire.error.issues })
  const type = Schema.toType(cls as unknown as Schema.Top)
  const status = statusOf(spec)
  const body = wireSchema(spec).annotate({ httpApiStatus: status, description: spec.description })
  if (spec.retryAfterSeconds === undefined) {
    return body.pipe(Schema.decodeTo(type, SchemaTransformation.transform<unknown, any>({
      decode: (wire) => fromWire(wire),
      encode: (error) => wireOf(error) as never
    }))).annotate({ httpApiStatus: status, description: spec.description })
  }
  const retryAfter = String(spec.retryAfterSeconds)
  return type.pipe(HttpApiSchema.encodeToWithHeaders({ body, headers: { "retry-after": Schema.String } }, {
    decode: ({ body }) => fromWire(body),
    encode: (error) => ({ body: wireOf(error) as never, headers: { "retry-after": retryAfter } })
  })).annotate({ description: spec.description })
}

/** The class an ApiError factory returns: a yieldable, tagged Schema error with its spec. */
export interface ApiErrorClass<Self, Tag extends string> extends
  Schema.Class<
    Self,
    Schema.TaggedStruct<Tag, typeof ErrorFields>,
    HttpServerRespondable.Respondable & Cause.YieldableError & { readonly code: ErrorCode; readonly status: number }
  >
{
  readonly code: ErrorCode
  readonly status: number
  /** The schema an endpoint's `error` list takes: this class to and from its wire body and status. */
  readonly response: Schema.Codec<Self, unknown>
}

/**
 * `class SlugTaken extends ApiError<SlugTaken>()("SlugTaken", { code: "conflict", … }) {}`.
 * Instances carry `message` (and `issues`); they answer themselves outside the HttpApi too
 * (unknown paths, the OpenAPI document), and are never logged as failures: the 500 of an
 * unexpected failure is logged where it is made.
 */
export const ApiError = <Self>() => <const Tag extends string>(tag: Tag, spec: ErrorSpec): ApiErrorClass<Self, Tag> => {
  const Base = Schema.TaggedError<any>()(tag, ErrorFields) as any
  class ApiErrorBase extends Base {
    static readonly code = spec.code
    static readonly status = statusOf(spec)
    static get response(): Schema.Top {
      let schema = responseSchemas.get(this)
      if (schema === undefined) {
        schema = makeResponseSchema(this as any, spec)
        responseSchemas.set(this, schema)
      }
      return schema
    }
    get code(): ErrorCode {
      return spec.code
    }
    get status(): number {
      return statusOf(spec)
    }
    readonly [ErrorReporter.ignore] = true;
    [HttpServerRespondable.symbol]() {
      const headers = spec.retryAfterSeconds === undefined ? undefined : { "retry-after": String(spec.retryAfterSeconds) }
      return Effect.succeed(HttpServerResponse.jsonUnsafe(toWireBody(spec.code, this as unknown as ErrorInstance), { status: statusOf(spec), headers }))
    }
  }
  return ApiErrorBase as any
}

/** The message of a 422, from its first issue: `Invalid request at geoRules.0.country: …`. */
export const invalidRequestMessage = (issues: ReadonlyArray<FieldIssue>): string => {
  const first = issues[0]
  const where = first === undefined || first.path.length === 0 ? "" : ` at ${first.path.join(".")}`
  return `Invalid request${where}: ${first?.message ?? "invalid value"}`
}

// --- cross-cutting errors ----------------------------------------------------------------------

/** 400: the body, query string or path cannot be read (not JSON, not text in its charset, past a bound). */
export class BadRequest extends ApiError<BadRequest>()("BadRequest", {
  code: "bad_request",
  description: "The body, query string or path cannot be read: not JSON or a form, an unsupported content type, text that is not in its charset, past a size or nesting bound"
}) {}

/** 401: no API key, or one that is not valid. */
export class Unauthorized extends ApiError<Unauthorized>()("Unauthorized", {
  code: "unauthorized",
  description: "Missing, malformed or unknown API key"
}) {}

/** 403: an admin-only operation with a member's key. */
export class Forbidden extends ApiError<Forbidden>()("Forbidden", {
  code: "forbidden",
  description: "An admin-only operation by a member, a write with a read-only key, or a signed-in write from another origin (CSRF)"
}) {}

/** 403: the workspace's plan lacks the API or a feature the request uses. */
export class PlanRequired extends ApiError<PlanRequired>()("PlanRequired", {
  code: "plan_required",
  description: "The workspace's plan lacks the API or a feature the request uses"
}) {}

/** 403: a plan limit (links, tags, folders, custom domains) is reached. */
export class LimitReached extends ApiError<LimitReached>()("LimitReached", {
  code: "limit_reached",
  description: "A limit of the workspace's plan is reached"
}) {}

/** 404: a path under /v1 that no endpoint serves. */
export class NotFound extends ApiError<NotFound>()("NotFound", {
  code: "not_found",
  description: "No such endpoint"
}) {}

/** 422: field validation of the path, query or body; `issues` says where. */
export class ValidationFailed extends ApiError<ValidationFailed>()("ValidationFailed", {
  code: "unprocessable_entity",
  description: "Field validation of the path, query or body; issues: [{ path, message, code }]"
}) {
  /** One field's problem. */
  static at(path: ReadonlyArray<string | number>, message: string, code = "invalid_value"): ValidationFailed {
    return new ValidationFailed({ message: `Invalid request: ${message}`, issues: [{ path, message, code }] })
  }
  /** Several issues, the message taken from the first. */
  static of(issues: ReadonlyArray<FieldIssue>): ValidationFailed {
    return new ValidationFailed({ message: invalidRequestMessage(issues), issues })
  }
}

/** 429: an allowance of the rate limit is used up (RateLimit-* and Retry-After say when it resets). */
export class RateLimitExceeded extends ApiError<RateLimitExceeded>()("RateLimitExceeded", {
  code: "rate_limit_exceeded",
  description: "A rate limit is exceeded; Retry-After says in how many seconds the window resets"
}) {}

/** How long a client is asked to wait before retrying after a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

const unavailableSpec: ErrorSpec = {
  code: "internal_server_error",
  description: `The database is unavailable (internal_server_error); retry after Retry-After (${UNAVAILABLE_RETRY_AFTER_SECONDS} s)`,
  retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS
}

const unavailableMessage = `The database is unavailable right now; retry in ${UNAVAILABLE_RETRY_AFTER_SECONDS} s`

/**
 * 503: the database could not be reached or did not answer in time (DatabaseUnavailable, which
 * the database layer fails with). The spec's codes are a closed list without one for this:
 * `internal_server_error`, with 503 and Retry-After saying it is temporary. `response` is what an
 * endpoint's error list takes; `answer` is the same response for the routes outside the HttpApi.
 */
export const ServiceUnavailable = {
  code: unavailableSpec.code,
  status: statusOf(unavailableSpec),
  response: makeResponseSchema(DatabaseUnavailable as never, unavailableSpec, unavailableMessage) as Schema.Codec<DatabaseUnavailable, unknown>,
  answer: (): HttpServerResponse.HttpServerResponse =>
    HttpServerResponse.jsonUnsafe(toWireBody(unavailableSpec.code, { message: unavailableMessage }), {
      status: statusOf(unavailableSpec),
      headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) }
    })
} as const

/** 500: anything unexpected; the cause is logged, never sent. */
export class InternalError extends ApiError<InternalError>()("InternalError", {
  code: "internal_server_error",
  description: "An unexpected failure (logged)"
}) {
  static readonly make = (): InternalError => new InternalError({ message: "Something went wrong on our side; it has been logged" })
}

/**
 * The fields of a 422 for an id or host that is not the workspace's: one `unknown_reference`
 * issue at `path`, and a message (by default the issue's own, prefixed).
 */
export const unknownReference = (path: ReadonlyArray<string | number>, issue: string, message = `Invalid request: ${issue}`) => ({
  message,
  issues: [{ path, message: issue, code: "unknown_reference" }]
})
