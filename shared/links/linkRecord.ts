/**
 * A link as the redirect engine needs it: what crosses the bus and what the engine compiles into
 * its cache. Plain JSON (no Dates) so both msgpack and the outbox's jsonb carry it unchanged.
 */
export interface LinkRecord {
  readonly id: string
  readonly workspaceId: string
  readonly domainId: string
  readonly host: string
  readonly slug: string
  readonly url: string
  readonly title: string | null
  readonly description: string | null
  readonly ogImageUrl: string | null
  readonly redirectType: 301 | 302 | 307 | 308
  readonly passQuery: boolean
  readonly openInApp: boolean
  readonly openInBrowser: boolean
  readonly utm: Readonly<Record<string, string>> | null
  readonly geoRules: ReadonlyArray<{ readonly country: string; readonly url: string }>
  readonly deviceRules: ReadonlyArray<{ readonly device: "ios" | "android" | "desktop"; readonly url: string }>
  readonly expiresAt: string | null
  readonly expiredUrl: string | null
  readonly abTest: {
    readonly variants: ReadonlyArray<{ readonly url: string; readonly weight: number }>
    readonly endsAt: string | null
  } | null
  /** argon2id hash in PHC form, or null; the engine verifies passwords against it. */
  readonly passwordHash: string | null
  readonly updatedAt: string
}

/** A domain as the engine needs it: which host serves, and its fallbacks. */
export interface DomainRecord {
  readonly id: string
  readonly workspaceId: string
  readonly host: string
  readonly status: "pending" | "verified" | "failed"
  readonly rootRedirectUrl: string | null
  readonly notFoundUrl: string | null
  readonly expiredUrl: string | null
}
