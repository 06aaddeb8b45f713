import { Effect, Exit, Logger, Schema } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { BadRequest, InternalError } from "../../control/kernel/errors.ts"
import { answerUnexpected } from "../../control/kernel/Unexpected.ts"

/** What the outermost middleware makes of a handler's outcome: declared failures pass, the rest is a logged 500. */
describe("answerUnexpected", () => {
  const run = async (effect: Effect.Effect<string, unknown>) => {
    const logged: Array<unknown> = []
    const logger = Logger.make(({ message }) => logged.push(message))
    const exit = await Effect.runPromiseExit(answerUnexpected(effect).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request("http://localhost/v1/links"))),
      Effect.provide(Logger.layer([logger]))
    ))
    const failure = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    return { exit, error: failure?._tag === "Fail" ? failure.error : undefined, logged: logged.flat().map(String) }
  }

  const schemaError = (kind: HttpApiError.HttpApiSchemaError["kind"]) =>
    new HttpApiError.HttpApiSchemaError({ kind, cause: Effect.runSync(Effect.flip(Schema.decodeUnknownEffect(Schema.String)(1))) })

  it.each<readonly [string, Effect.Effect<string, unknown>, "pass" | "500"]>([
    ["a success", Effect.succeed("ok"), "pass"],
    ["a declared failure", Effect.fail(new BadRequest({ message: "no" })), "pass"],
    ["a defect", Effect.die(new Error("boom")), "500"],
    ["a thrown exception", Effect.sync(() => { throw new Error("boom") }), "500"],
    ["a response that does not match its schema", Effect.fail(schemaError("Body")), "500"]
  ])("%s", async (_case, effect, outcome) => {
    const { exit, error, logged } = await run(effect)
    if (outcome === "pass") {
      expect(logged).toEqual([])
      if (Exit.isFailure(exit)) expect(error).toBeInstanceOf(BadRequest)
    } else {
      expect(error).toBeInstanceOf(InternalError)
      expect(error).toMatchObject({ message: "Something went wrong on our side; it has been logged", status: 500 })
      expect(logged).toEqual(["GET /v1/links failed"])
    }
  })
})
