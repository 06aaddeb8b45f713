import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ProxySettings } from "../../../shared/settings/ProxySettings.ts"
import { clientAddress } from "../AdmissionLayer.ts"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { LiveHub } from "../../live/LiveHub.ts"
import { MemberService } from "../../members/MemberService.ts"

export const MembersHandlers = HttpApiBuilder.group(Api, "members", (handlers) =>
  Effect.gen(function*() {
    const members = yield* MemberService
    const live = yield* LiveHub
    const as = <A, E, R>(f: (principal: CurrentPrincipal["Service"]) => Effect.Effect<A, E, R>) => Effect.flatMap(Effect.service(CurrentPrincipal), f)
    return handlers
      .handle("list", () => as((p) => Effect.map(members.list(p), (data) => ({ data }))))
      .handle("setRole", ({ params, payload }) => as((p) => members.setRole(p, params.id, payload.role)))
      .handle("remove", ({ params }) => as((p) => Effect.as(members.remove(p, params.id), { id: params.id })))
      .handle("invitations", () => as((p) => Effect.map(members.invitations(p), (data) => ({ data }))))
      .handle("invite", ({ payload }) => as((p) => members.invite(p, payload.email, payload.role)))
      .handle("revokeInvitation", ({ params }) => as((p) => Effect.as(members.revokeInvitation(p, params.id), { id: params.id })))
      .handle("endOtherSessions", () => as((p) => Effect.map(members.endOtherSessions(p), (signedOut) => ({ signedOut }))))
  }))

export const InvitationsHandlers = HttpApiBuilder.group(Api, "invitationAccept", (handlers) =>
  Effect.gen(function*() {
    const members = yield* MemberService
    const { trustProxy } = yield* ProxySettings
    return handlers
      .handle("preview", ({ payload }) => members.preview(payload.token))
      .handle("accept", ({ payload }) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => members.accept(payload.token, payload.password, clientAddress(request, trustProxy))))
  }))
