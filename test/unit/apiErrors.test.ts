import { Effect, Schema } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { HttpServerRespondable } from "effect/http"
import { describe, expect, it } from "vitest"
import { BadRequest, Forbidden, InternalError, LimitReached, NotFound, PlanRequired, RateLimitExceeded, ServiceUnavailable, statusOf, Unauthorized, unknownReference, ValidationFailed } from "../../control/kernel/errors.ts"
import { DatabaseUnavailable } from "../../control/kernel/DatabaseUnavailable.ts"
import { DomainNotFound, HostTaken, SubdomainKept } from "../../control/domains/errors.ts"
import { FolderNameTaken, FolderNotFound } from "../../control/folders/errors.ts"
import { LinkNotFound, SlugTaken } from "../../control/links/errors.ts"
import { TagNameTaken, TagNotFound } from "../../control/tags/errors.ts"
import { ROOT } from "../support/processes.ts"
import { DomainUnknown, FolderUnknown, LinkUnknown, SlugUnknown, TagUnknown } from "../../control/kernel/unknownReferences.ts"

/** Each error class: its status and code, stated once, and exactly the spec's body on the wire. */

type ErrorClass = {
  readonly response: Schema.Codec<unknown, unknown>
  readonly status: number
  readonly code: string
  new(props: { message: string; issues?: ReadonlyArray<{ path: ReadonlyArray<string | number>; message: string; code: string }> }): object
}

const table: ReadonlyArray<readonly [ErrorClass, number, string]> = [
  [BadRequest, 400, "bad_request"],
  [Unauthorized, 401, "unauthorized"],
  [Forbidden, 403, "forbidden"],
  [PlanRequired, 403, "plan_required"],
  [LimitReached, 403, "limit_reached"],
  [NotFound, 404, "not_found"],
  [LinkNotFound, 404, "not_found"],
  [TagNotFound, 404, "not_found"],
  [FolderNotFound, 404, "not_found"],
  [DomainNotFound, 404, "not_found"],
  [SlugTaken, 409, "conflict"],
  [TagNameTaken, 409, "conflict"],
  [FolderNameTaken, 409, "conflict"],
  [HostTaken, 409, "conflict"],
  [SubdomainKept, 409, "conflict"],
  [ValidationFailed, 422, "unprocessable_entity"],
  [RateLimitExceeded, 429, "rate_limit_exceeded"],
  [InternalError, 500, "internal_server_error"]
]

const wire = (cls: ErrorClass) => Schema.toCodecJson(cls.response)

describe.each(table)("%o", (cls, status, code) => {
  const error = new cls({ message: "What went wrong" })

  it(`declares ${status} ${code}`, () => {
    expect({ status: cls.status, code: cls.code }).toEqual({ status, code })
  })

  it("encodes to exactly { error: { code, message } } and decodes back to the class", () => {
    const encoded = Schema.encodeUnknownSync(wire(cls))(error)
    expect(encoded).toStrictEqual({ error: { code, message: "What went wrong" } })
    const decoded = Schema.decodeUnknownSync(wire(cls))(encoded)
    expect(decoded).toBeInstanceOf(cls)
    expect(decoded).toMatchObject({ message: "What went wrong" })
  })

  it("answers the same outside the HttpApi (unknown paths, documents)", async () => {
    const response = await Effect.runPromise(HttpServerRespondable.toResponse(error as HttpServerRespondable.Respondable))
    expect(response.status).toBe(status)
    expect(response.headers["retry-after"]).toBe(undefined)
  })
})

describe("the status of an error", () => {
  it("follows from its spec code in one place: no error declared beside its concept states one", () => {
    const declaringStatus = readdirSync(path.join(ROOT, "control"), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && file !== path.join("kernel", "errors.ts"))
      .filter((file) => /ApiError<[\s\S]*?\bstatus:\s*\d{3}/.test(readFileSync(path.join(ROOT, "control", file), "utf8")))
    expect(declaringStatus).toEqual([])
  })

  it("is 503 for an internal_server_error the client is asked to retry, 500 otherwise", () => {
    expect(statusOf({ code: "internal_server_error" })).toBe(500)
    expect(statusOf({ code: "internal_server_error", retryAfterSeconds: 2 })).toBe(503)
    expect(statusOf({ code: "limit_reached" })).toBe(403)
  })
})

describe("DatabaseUnavailable: the database layer's failure, answered 503 by the API", () => {
  const spec = { error: { code: "internal_server_error", message: "The database is unavailable right now; retry in 5 s" } }

  it("carries no HTTP status of its own", () => {
    const error = DatabaseUnavailable.now()
    expect(error).not.toHaveProperty("status")
    expect(error).not.toHaveProperty("code")
    expect(HttpServerRespondable.isRespondable(error)).toBe(false)
  })

  it("is the spec's 503 body with Retry-After in an endpoint's error list, and decodes back for the typed client", () => {
    expect(ServiceUnavailable).toMatchObject({ status: 503, code: "internal_server_error" })
    const encoded = Schema.encodeUnknownSync(Schema.toCodecJson(ServiceUnavailable.response))(DatabaseUnavailable.now())
    expect(encoded).toStrictEqual({ body: spec, headers: { "retry-after": "5" } })
    const decoded = Schema.decodeUnknownSync(Schema.toCodecJson(ServiceUnavailable.response))(encoded)
    expect(decoded).toBeInstanceOf(DatabaseUnavailable)
  })

  it("answers the same outside the HttpApi (unknown paths, documents, the live stream)", async () => {
    const response = ServiceUnavailable.answer()
    expect(response.status).toBe(503)
    expect(response.headers["retry-after"]).toBe("5")
    expect(JSON.parse(new TextDecoder().decode((response.body as { body: Uint8Array }).body))).toStrictEqual(spec)
  })
})

describe("errors that share a code on one endpoint", () => {
  const issue = (field: string) => unknownReference([field], `No such ${field}`)

  it("carry their issues on the wire", () => {
    expect(Schema.encodeUnknownSync(wire(FolderUnknown))(new FolderUnknown(issue("folderId")))).toStrictEqual({
      error: { code: "unprocessable_entity", message: "Invalid request: No such folderId", issues: [{ path: ["folderId"], message: "No such folderId", code: "unknown_reference" }] }
    })
  })

  // The typed client tries an endpoint's errors of one status in turn: each unknown-reference class
  // takes only a body whose first issue is an unknown_reference at its own field.
  it.each<readonly [ErrorClass, string]>([
    [FolderUnknown, "folderId"], [TagUnknown, "tagIds"], [DomainUnknown, "domain"], [LinkUnknown, "linkId"], [SlugUnknown, "slug"]
  ])("%o decodes only unknown_reference issues at %s", (cls, field) => {
    const own = Schema.encodeUnknownSync(wire(ValidationFailed))(new ValidationFailed(issue(field)))
    expect(Schema.decodeUnknownSync(wire(cls))(own)).toBeInstanceOf(cls)
    const elsewhere = Schema.encodeUnknownSync(wire(ValidationFailed))(new ValidationFailed(issue("other")))
    expect(() => Schema.decodeUnknownSync(wire(cls))(elsewhere)).toThrow()
    const plain = Schema.encodeUnknownSync(wire(ValidationFailed))(ValidationFailed.at([field], "Required", "required"))
    expect(() => Schema.decodeUnknownSync(wire(cls))(plain)).toThrow()
  })

  it("a 422 of the schema says where, from its first issue", () => {
    expect(ValidationFailed.of([{ path: ["geoRules", 0, "country"], message: "Expected a 2-letter country code", code: "invalid_value" }]).message)
      .toBe("Invalid request at geoRules.0.country: Expected a 2-letter country code")
  })
})
