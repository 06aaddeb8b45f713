import { Effect } from "effect"
import { Configuration } from "../../shared/config.ts"
import { attempt, query } from "../db/query.ts"
import { fieldError, notFound } from "../http/ApiError.ts"
import { DeletionResult, IdParams } from "../http/fields.ts"
import { route } from "../http/route.ts"
import { DomainVerifier } from "./DomainVerifier.ts"
import { parseCustomHost } from "./host.ts"
import { createDomain, deleteDomain, findDomain, listDomains, toDomain, updateDomain } from "./repository.ts"
import { Domain, DomainCreate, DomainList, DomainUpdate, VerificationResult } from "./schema.ts"

const targets = Effect.gen(function*() {
  return (yield* DomainVerifier).targets
})

export const domainRoutes = [
  route({
    method: "GET",
    path: "/v1/domains",
    group: "domains",
    summary: "List the workspace's domains",
    success: DomainList,
    status: 200,
    handler: ({ principal }) =>
      Effect.gen(function*() {
        const rows = yield* query((sql) => listDomains(sql, principal.workspaceId))
        const t = yield* targets
        return { data: rows.map((row) => toDomain(row, t)) }
      })
  }),
  route({
    method: "POST",
    path: "/v1/domains",
    group: "domains",
    summary: "Add a custom domain; the response lists the DNS records to publish",
    body: DomainCreate,
    success: Domain,
    status: 201,
    access: "admin",
    handler: ({ principal, body }) =>
      Effect.gen(function*() {
        const { shortDomain } = yield* Configuration
        const parsed = parseCustomHost(body.host, shortDomain)
        if ("problem" in parsed) return yield* fieldError(["host"], parsed.problem, "invalid_host")
        const row = yield* query((sql) => createDomain(sql, principal, parsed.host))
        return toDomain(row, yield* targets)
      })
  }),
  route({
    method: "GET",
    path: "/v1/domains/:id",
    group: "domains",
    summary: "Get a domain",
    params: IdParams,
    success: Domain,
    status: 200,
    handler: ({ principal, params }) =>
      Effect.gen(function*() {
        const row = yield* query((sql) => findDomain(sql, principal.workspaceId, params.id))
        if (row === undefined) return yield* notFound("Domain")
        return toDomain(row, yield* targets)
      })
  }),
  route({
    method: "PATCH",
    path: "/v1/domains/:id",
    group: "domains",
    summary: "Set or clear the domain's fallback destinations",
    params: IdParams,
    body: DomainUpdate,
    success: Domain,
    status: 200,
    access: "admin",
    handler: ({ principal, params, body }) =>
      Effect.gen(function*() {
        const row = yield* query((sql) => updateDomain(sql, principal.workspaceId, params.id, body))
        return toDomain(row, yield* targets)
      })
  }),
  route({
    method: "DELETE",
    path: "/v1/domains/:id",
    group: "domains",
    summary: "Remove a custom domain and every link on it",
    params: IdParams,
    success: DeletionResult,
    status: 200,
    access: "admin",
    handler: ({ principal, params }) =>
      Effect.as(query((sql) => deleteDomain(sql, principal.workspaceId, params.id)), { id: params.id })
  }),
  route({
    method: "POST",
    path: "/v1/domains/:id/verify",
    group: "domains",
    summary: "Check the domain's DNS records now",
    params: IdParams,
    success: VerificationResult,
    status: 200,
    handler: ({ principal, params }) =>
      Effect.gen(function*() {
        const verifier = yield* DomainVerifier
        const row = yield* query((sql) => findDomain(sql, principal.workspaceId, params.id))
        if (row === undefined) return yield* notFound("Domain")
        if (row.kind === "subdomain") {
          return { domain: toDomain(row, verifier.targets), verified: true, reason: "The workspace subdomain is always verified" }
        }
        // Not under the database deadline: DNS answers (with retries) may take seconds of their own.
        const outcome = yield* attempt(() => verifier.check(row))
        if (outcome.row === undefined) return yield* notFound("Domain")
        return { domain: toDomain(outcome.row, verifier.targets), verified: outcome.ok, reason: outcome.reason }
      })
  })
]
