import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { WebhookRepository } from "../../webhooks/WebhookRepository.ts"

const DEFAULT_PAGE = 50

export const WebhooksHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* WebhookRepository
    const inWorkspace = <A, E>(f: (workspaceId: string) => Effect.Effect<A, E>) =>
      Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => f(workspaceId))
    return handlers
      .handle("list", () => inWorkspace((ws) => Effect.map(webhooks.list(ws), (data) => ({ data }))))
      .handle("create", ({ payload }) => inWorkspace((ws) => webhooks.create(ws, payload)))
      .handle("get", ({ params }) => inWorkspace((ws) => webhooks.find(ws, params.id)))
      .handle("update", ({ params, payload }) => inWorkspace((ws) => webhooks.update(ws, params.id, payload)))
      .handle("delete", ({ params }) => inWorkspace((ws) => Effect.as(webhooks.remove(ws, params.id), { id: params.id })))
      .handle("deliveries", ({ params, query }) =>
        inWorkspace((ws) => webhooks.deliveries(ws, params.id, { limit: query.limit ?? DEFAULT_PAGE, cursor: query.cursor })))
  }))
