import type { LinkRecord } from "../../shared/links/linkRecord.ts"

/** A plain link record (302 to `url`, no rules) for engine tests; `fields` override any part. */
export const linkRecord = (fields: Partial<LinkRecord> = {}): LinkRecord => ({
  id: "lnk_1",
  workspaceId: "ws_1",
  domainId: "dom_1",
  host: "go.example.com",
  slug: "abc",
  url: "https://example.com/landing",
  title: null,
  description: null,
  ogImageUrl: null,
  redirectType: 302,
  passQuery: false,
  openInApp: false,
  openInBrowser: false,
  utm: null,
  geoRules: [],
  deviceRules: [],
  expiresAt: null,
  expiredUrl: null,
  abTest: null,
  passwordHash: null,
  updatedAt: "2030-01-01T00:00:00.000Z",
  ...fields
})
