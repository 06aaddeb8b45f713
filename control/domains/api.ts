import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminOnly } from "../kernel/AdminOnly.ts"
import { LimitReached } from "../kernel/errors.ts"
import { input, requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { DeletionResult, IdParams } from "../kernel/fields.ts"
import { DomainNotFound, HostTaken, SubdomainKept } from "./errors.ts"
import { Domain, DomainCheckList, DomainCreate, DomainList, DomainUpdate, VerificationResult } from "./schema.ts"

/** /v1/domains: the workspace subdomain and custom domains; changes are for admins. */
export const DomainsApi = HttpApiGroup.make("domains")
  .annotate(OpenApi.Description, "The workspace subdomain and custom domains, verified over DNS")
  .add(HttpApiEndpoint.get("list", "/domains", { success: DomainList }).annotate(OpenApi.Summary, "List the workspace's domains"))
  .add(
    HttpApiEndpoint.get("checks", "/domains/checks", { success: DomainCheckList })
      .annotate(OpenApi.Summary, "When each custom domain was last checked over DNS, and what the check found (not in the spec)")
  )
  .add(
    HttpApiEndpoint.post("create", "/domains", {
      payload: requestBody(DomainCreate),
      success: Domain.pipe(HttpApiSchema.status(201)),
      error: [HostTaken.response, LimitReached.response]
    }).middleware(RequestChecks).middleware(AdminOnly)
      .annotate(OpenApi.Summary, "Add a custom domain; the response lists the DNS records to publish")
  )
  .add(
    HttpApiEndpoint.get("get", "/domains/:id", {
      params: input(IdParams),
      success: Domain,
      error: DomainNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Get a domain")
  )
  .add(
    HttpApiEndpoint.patch("update", "/domains/:id", {
      params: input(IdParams),
      payload: requestBody(DomainUpdate),
      success: Domain,
      error: DomainNotFound.response
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(OpenApi.Summary, "Set or clear the domain's fallback destinations")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/domains/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: [DomainNotFound.response, SubdomainKept.response]
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(OpenApi.Summary, "Remove a custom domain and every link on it")
  )
  .add(
    HttpApiEndpoint.post("verify", "/domains/:id/verify", {
      params: input(IdParams),
      success: VerificationResult,
      error: DomainNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Check the domain's DNS records now")
  )
