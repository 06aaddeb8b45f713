import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ProxySettings } from "../../../shared/settings/ProxySettings.ts"
import { clientAddress } from "../AdmissionLayer.ts"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { PasswordService } from "../../people/PasswordService.ts"

export const MeHandlers = HttpApiBuilder.group(Api, "me", (handlers) =>
  Effect.gen(function*() {
    const passwords = yield* PasswordService
    const { trustProxy } = yield* ProxySettings
    return handlers.handle("changePassword", ({ payload }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const request = yield* HttpServerRequest.HttpServerRequest
        return yield* passwords.change(principal, payload, clientAddress(request, trustProxy))
      }))
  }))
