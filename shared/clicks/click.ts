/** The analytics device classes (design.md). */
export type DeviceClass = "desktop" | "mobile" | "tablet" | "tv" | "console" | "other"

/** What the hot path captures of a counted visit: raw, cheap to take; derived later in batches. */
export interface RawClick {
  readonly timestamp: number
  readonly workspaceId: string
  readonly linkId: string
  readonly domain: string
  readonly slug: string
  /** The final destination URL the visitor was sent to. */
  readonly url: string
  readonly variant: number | null
  readonly ip: string
  readonly userAgent: string
  readonly referer: string
  readonly geoHeader: string
  readonly signatureAgent: string
}

/** One counted click, as the analytics store it. No raw IP address. */
export interface ClickRecord {
  readonly timestamp: number
  readonly workspaceId: string
  readonly linkId: string
  readonly domain: string
  readonly slug: string
  readonly url: string
  readonly audience: "people" | "agent"
  readonly country: string | null
  readonly region: string | null
  readonly city: string | null
  readonly device: DeviceClass
  readonly browser: string
  readonly os: string
  readonly refererHost: string | null
  readonly utmSource: string | null
  readonly utmMedium: string | null
  readonly utmCampaign: string | null
  readonly utmTerm: string | null
  readonly utmContent: string | null
  readonly abVariant: number | null
  readonly visitorHash: string
}

/**
 * Where counted clicks go. `write` takes the batch when called (so calls keep their order) and
 * resolves once it is durable; callers do not wait for one write before making the next. The
 * spool sink implements it; tests use the in-memory one.
 */
export interface ClickSink {
  readonly write: (clicks: ReadonlyArray<ClickRecord>) => Promise<void>
  readonly flush: () => Promise<void>
  readonly close: () => Promise<void>
}

/** Keeps clicks in memory and counts them by audience. */
export class MemoryClickSink implements ClickSink {
  readonly clicks: Array<ClickRecord> = []
  readonly counts = { people: 0, agent: 0 }
  constructor(private readonly keep = 100_000) {}
  async write(clicks: ReadonlyArray<ClickRecord>) {
    for (const click of clicks) {
      this.counts[click.audience]++
      if (this.clicks.length < this.keep) this.clicks.push(click)
    }
  }
  async flush() {}
  async close() {}
}
