import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { SessionSettings } from "./SessionSettings.ts"
import { Forbidden } from "../kernel/errors.ts"
import { signInOriginAllowed } from "./csrf.ts"
import { SignInOrigin } from "./SignInOrigin.ts"

const fromThisSite = (publicOrigin: string | undefined) =>
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
    signInOriginAllowed(request.headers["origin"], request.headers["sec-fetch-site"], request.headers["host"], publicOrigin)
      ? Effect.void
      : Effect.fail(new Forbidden({ message: "Signing in must come from this site (the request's Origin or Sec-Fetch-Site names another)" })))

export const SignInOriginLayer = Layer.effect(SignInOrigin)(Effect.gen(function*() {
  const { publicOrigin } = yield* SessionSettings
  return (httpEffect) => Effect.andThen(fromThisSite(publicOrigin), httpEffect)
}))
