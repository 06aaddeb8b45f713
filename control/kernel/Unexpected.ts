import { Cause, Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiError, HttpApiMiddleware } from "effect/http-api"
import { InternalError } from "./errors.ts"

/**
 * The outermost middleware of the API: anything unexpected (a defect, a response that does not
 * match its own schema) is logged with its cause and answered 500 with the error body. Declared
 * failures and interruptions pass through.
 */
export class Unexpected extends HttpApiMiddleware.Service<Unexpected>()("ricochet/Unexpected", {
  error: InternalError.response
}) {}

const isExpected = (reason: Cause.Reason<unknown>): boolean =>
  reason._tag === "Interrupt" || (reason._tag === "Fail" && !HttpApiError.HttpApiSchemaError.is(reason.error))

/** Logs `cause` and gives the 500 the client sees. */
const logUnexpected = (cause: Cause.Cause<unknown>) =>
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
    Effect.as(Effect.logError(`${request.method} ${request.url} failed`, cause), InternalError.make()))

/** `effect` with every cause that is not all `expected` reasons logged and failed as a 500. */
export const answerUnexpected = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  expected: (reason: Cause.Reason<E>) => boolean = isExpected
): Effect.Effect<A, E | InternalError, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchCause(effect, (cause): Effect.Effect<never, E | InternalError, HttpServerRequest.HttpServerRequest> =>
    cause.reasons.every(expected) ? Effect.failCause(cause) : Effect.flatMap(logUnexpected(cause), Effect.fail))

export const UnexpectedLayer = Layer.succeed(Unexpected)((httpEffect) => answerUnexpected(httpEffect))
