import type { Effect, Schema } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { Database, DatabaseError } from "../../shared/db/Database.ts"
import type { Plan } from "../plans/plans.ts"
import type { Configuration } from "../../shared/config.ts"
import type { ClickStore } from "../analytics/ClickStore.ts"
import type { DomainVerifier } from "../domains/DomainVerifier.ts"
import type { ApiError } from "./ApiError.ts"

/** Who is calling: resolved from the API key before any handler runs. */
export interface Principal {
  readonly keyId: string
  readonly workspaceId: string
  readonly userId: string
  readonly role: "admin" | "member"
  readonly plan: Plan
}

export interface RouteInput<P, Q, B> {
  readonly principal: Principal
  readonly params: P
  readonly query: Q
  readonly body: B
  readonly request: HttpServerRequest.HttpServerRequest
}

/** The services a handler may use; the server provides exactly these. */
export type ApiServices = Database | Configuration | DomainVerifier | ClickStore

type AnySchema = Schema.Codec<any, any, never, never>

/**
 * One endpoint, declared once: the router serves it, validates with its Schemas, and the OpenAPI
 * document is generated from the same declaration.
 */
export interface RouteDef<P, Q, B, A> {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE"
  /** Router path with `:param` segments, always under /v1. */
  readonly path: `/v1/${string}`
  readonly group: "links" | "tags" | "folders" | "domains" | "analytics"
  readonly summary: string
  readonly params?: Schema.Codec<P, any, never, never>
  readonly query?: Schema.Codec<Q, any, never, never>
  readonly body?: Schema.Codec<B, any, never, never>
  readonly success: AnySchema
  readonly status: 200 | 201
  /** "admin": a member's key gets 403 forbidden. */
  readonly access?: "any" | "admin"
  /** Analytics requests also count against the analytics allowance. */
  readonly allowance?: "general" | "analytics"
  readonly handler: (input: RouteInput<P, Q, B>) => Effect.Effect<A, ApiError | DatabaseError, ApiServices>
}

export type Route = RouteDef<any, any, any, any>

/** Keeps each route's types checked while the table holds routes of different shapes. */
export const route = <P = {}, Q = {}, B = undefined, A = unknown>(def: RouteDef<P, Q, B, A>): Route => def
