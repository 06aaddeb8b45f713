import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { LinkSettings } from "../../../shared/settings/LinkSettings.ts"
import { Api } from "../../api/Api.ts"
import { ValidationFailed } from "../../kernel/errors.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { DomainRepository } from "../../domains/DomainRepository.ts"
import { toDomain, toDomainCheck } from "../../domains/domainRow.ts"
import { DomainVerifier } from "../../domains/DomainVerifier.ts"
import { DomainNotFound } from "../../domains/errors.ts"
import { parseCustomHost } from "../../domains/host.ts"

export const DomainsHandlers = HttpApiBuilder.group(Api, "domains", (handlers) =>
  Effect.gen(function*() {
    const domains = yield* DomainRepository
    const verifier = yield* DomainVerifier
    const { shortDomain } = yield* LinkSettings
    const { targets } = verifier
    return handlers
      .handle("list", () =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(domains.list(workspaceId), (rows) => ({ data: rows.map((row) => toDomain(row, targets)) }))))
      .handle("checks", () =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(domains.list(workspaceId), (rows) => ({ data: rows.filter((row) => row.kind === "custom").map(toDomainCheck) }))))
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const parsed = parseCustomHost(payload.host, shortDomain)
          if ("problem" in parsed) return yield* ValidationFailed.at(["host"], parsed.problem, "invalid_host")
          return toDomain(yield* domains.create(principal, parsed.host), targets)
        }))
      .handle("get", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(domains.find(workspaceId, params.id), (row) => toDomain(row, targets))))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(domains.update(workspaceId, params.id, payload), (row) => toDomain(row, targets))))
      .handle("delete", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.as(domains.remove(workspaceId, params.id), { id: params.id })))
      .handle("verify", ({ params }) =>
        Effect.gen(function*() {
          const { workspaceId } = yield* CurrentPrincipal
          const row = yield* domains.find(workspaceId, params.id)
          if (row.kind === "subdomain") {
            return { domain: toDomain(row, targets), verified: true, reason: "The workspace subdomain is always verified" }
          }
          const outcome = yield* verifier.check(row)
          if (outcome.row === undefined) return yield* DomainNotFound.make()
          return { domain: toDomain(outcome.row, targets), verified: outcome.ok, reason: outcome.reason }
        }))
  }))
