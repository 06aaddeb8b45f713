import { xxh64 } from "@node-rs/xxhash"
import type { GeoLookup } from "../geo/geo.ts"
import { classifyAudience } from "../visitors/audience.ts"
import { BoundedMemo } from "../visitors/boundedMemo.ts"
import { parseDevice } from "../visitors/device.ts"
import type { ClickRecord, ClickSink, RawClick } from "../../shared/clicks/click.ts"

// Destinations, referers and addresses repeat across clicks: parse each once while it is hot.
const refererMemo = new BoundedMemo<string | null>(4096, 2048)
const utmMemo = new BoundedMemo<Utm>(4096, 4096)

const refererHost = (referer: string): string | null => {
  if (referer === "") return null
  const known = refererMemo.get(referer)
  if (known !== undefined) return known
  let host: string | null
  try {
    host = new URL(referer).hostname.toLowerCase() || null
  } catch {
    host = null
  }
  refererMemo.set(referer, host)
  return host
}

interface Utm {
  readonly utmSource: string | null
  readonly utmMedium: string | null
  readonly utmCampaign: string | null
  readonly utmTerm: string | null
  readonly utmContent: string | null
}

const NO_UTM: Utm = { utmSource: null, utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null }

const utmOf = (url: string): Utm => {
  const known = utmMemo.get(url)
  if (known !== undefined) return known
  let utm = NO_UTM
  if (url.includes("utm_")) {
    try {
      const params = new URL(url).searchParams
      utm = {
        utmSource: params.get("utm_source"),
        utmMedium: params.get("utm_medium"),
        utmCampaign: params.get("utm_campaign"),
        utmTerm: params.get("utm_term"),
        utmContent: params.get("utm_content")
      }
    } catch {
      utm = NO_UTM
    }
  }
  utmMemo.set(url, utm)
  return utm
}

const DAY_MS = 86_400_000
let lastDay = { number: Number.NaN, text: "" }
/** `YYYY-MM-DD` (UTC) of a timestamp; clicks come in time order, so the last answer nearly always fits. */
const dayOf = (timestamp: number): string => {
  const number = Math.floor(timestamp / DAY_MS)
  if (number !== lastDay.number) lastDay = { number, text: new Date(number * DAY_MS).toISOString().slice(0, 10) }
  return lastDay.text
}

/**
 * Visitor hashes by user agent, then address, for one day and secret: the same visitor clicks
 * again, and the writer holds each distinct string once (ClickBatch), so two lookups on hashes
 * V8 keeps in the strings cost less than hashing the visitor again (a native call, a BigInt, a
 * hex string). Cleared when the day or the secret changes, and when it holds MAX_HASHES.
 */
const MAX_HASHES = 65_536
let hashes = new Map<string, Map<string, string>>()
let hashCount = 0
let hashesFor = { day: "", secret: "" }

const visitorHash = (ip: string, userAgent: string, day: string, secret: string): string => {
  if (day !== hashesFor.day || secret !== hashesFor.secret || hashCount >= MAX_HASHES) {
    hashes = new Map()
    hashCount = 0
    hashesFor = { day, secret }
  }
  let byAddress = hashes.get(userAgent)
  if (byAddress === undefined) hashes.set(userAgent, (byAddress = new Map()))
  let hash = byAddress.get(ip)
  if (hash === undefined) {
    hash = xxh64(`${ip}\n${userAgent}\n${day}\n${secret}`).toString(16)
    byAddress.set(ip, hash)
    hashCount++
  }
  return hash
}

/**
 * Derives click records from raw clicks: audience (bots are dropped here, never counted),
 * location, device, referer host, the destination's UTM values and a visitor hash salted per day
 * so visitors cannot be followed across days. Pure apart from the geo database it reads.
 */
export const deriveClick = (raw: RawClick, geo: GeoLookup, secret: string): ClickRecord | null => {
  const audience = classifyAudience(raw.userAgent, raw.signatureAgent === "" ? undefined : raw.signatureAgent)
  if (audience === "bot") return null
  const where = geo.locate(raw.ip, raw.geoHeader)
  const device = parseDevice(raw.userAgent)
  const day = dayOf(raw.timestamp)
  const utm = utmOf(raw.url)
  return {
    timestamp: raw.timestamp,
    workspaceId: raw.workspaceId,
    linkId: raw.linkId,
    domain: raw.domain,
    slug: raw.slug,
    url: raw.url,
    audience,
    country: where.country,
    region: where.region,
    city: where.city,
    device: device.device,
    browser: device.browser,
    os: device.os,
    refererHost: refererHost(raw.referer),
    utmSource: utm.utmSource,
    utmMedium: utm.utmMedium,
    utmCampaign: utm.utmCampaign,
    utmTerm: utm.utmTerm,
    utmContent: utm.utmContent,
    abVariant: raw.variant,
    visitorHash: visitorHash(raw.ip, raw.userAgent, day, secret)
  }
}

/**
 * Collects raw clicks and hands derived records to the sink in batches: every `intervalMs`, or
 * sooner when `batchSize` clicks are waiting. The engine runs it in the click writer thread.
 * A batch the sink refuses (its buffer for a refusing disk is full, or it is closing) is counted
 * in `dropped`, and the log says so once per episode: when dropping starts, and when the sink
 * has taken clicks for `recoveredAfterMs` without refusing one. While a full buffer drains, the
 * sink takes one batch and refuses the next for a while; without that wait each of those turns
 * would be an episode of its own, two log lines each.
 */
export class ClickCollector {
  private pending: Array<RawClick> = []
  private timer: NodeJS.Timeout | undefined
  /** Batches handed to the sink and not yet acknowledged by it. */
  private readonly writing = new Set<Promise<void>>()
  /** Visits seen by audience (bots are seen but never written). */
  readonly counts = { people: 0, agent: 0, bot: 0 }
  /** Clicks the sink refused: derived and counted above, never written. */
  dropped = 0
  /** Clicks dropped in the current episode (since the first refusal after an acknowledgement). */
  private droppingSince: { readonly dropped: number; readonly at: number } | undefined
  /** When the sink last refused a batch, and whether it has taken one since. */
  private lastRefusalAt = 0
  private takenSinceRefusal = false
  private recovery: NodeJS.Timeout | undefined

  constructor(
    private readonly sink: ClickSink,
    private readonly geo: GeoLookup,
    private readonly secret: string,
    private readonly intervalMs = 50,
    private readonly batchSize = 256,
    private readonly recoveredAfterMs = 1_000
  ) {}

  add(click: RawClick): void {
    this.pending.push(click)
    if (this.pending.length >= this.batchSize) this.handOver()
    else this.timer ??= setTimeout(() => this.handOver(), this.intervalMs)
  }

  /** Everything collected so far goes to the sink (not waiting for it to be acknowledged). */
  private handOver(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.pending
    if (batch.length === 0) return
    this.pending = []
    const records: Array<ClickRecord> = []
    for (const raw of batch) {
      const record = deriveClick(raw, this.geo, this.secret)
      if (record === null) this.counts.bot++
      else {
        this.counts[record.audience]++
        records.push(record)
      }
    }
    // Handed over at once: the sink keeps the order and group-commits whatever arrives meanwhile,
    // so throughput is not limited to one batch per fsync.
    const written = this.sink.write(records).then(
      () => this.written(),
      (error) => this.refused(records.length, error)
    )
    this.writing.add(written)
    void written.finally(() => this.writing.delete(written))
  }

  private written(): void {
    if (this.droppingSince === undefined) return
    this.takenSinceRefusal = true
    const quietFor = Date.now() - this.lastRefusalAt
    if (quietFor >= this.recoveredAfterMs) this.recovered()
    else if (this.recovery === undefined) {
      this.recovery = setTimeout(() => {
        this.recovery = undefined
        if (this.takenSinceRefusal && Date.now() - this.lastRefusalAt >= this.recoveredAfterMs) this.recovered()
      }, this.recoveredAfterMs - quietFor)
      this.recovery.unref()
    }
  }

  /** Ends the episode: the sink takes clicks again. */
  private recovered(): void {
    if (this.droppingSince === undefined) return
    if (this.recovery !== undefined) clearTimeout(this.recovery)
    this.recovery = undefined
    const seconds = ((Date.now() - this.droppingSince.at) / 1000).toFixed(1)
    console.error(`clicks are being written again: ${this.dropped - this.droppingSince.dropped} dropped in ${seconds} s (see clicksDropped)`)
    this.droppingSince = undefined
  }

  private refused(clicks: number, error: unknown): void {
    this.lastRefusalAt = Date.now()
    this.takenSinceRefusal = false
    if (this.droppingSince === undefined) {
      this.droppingSince = { dropped: this.dropped, at: this.lastRefusalAt }
      console.error(`clicks dropped: ${error instanceof Error ? error.message : String(error)}; counting them in clicksDropped until the spool takes clicks again`)
    }
    this.dropped += clicks
  }

  /** Every batch handed to the sink has been acknowledged or refused. */
  private settled(): Promise<void> {
    return Promise.all(this.writing).then(() => {})
  }

  /** Everything collected so far reaches the sink and the sink flushes it. */
  async flush(): Promise<void> {
    this.handOver()
    await this.settled()
    await this.sink.flush()
  }

  /** Hands over what is collected and closes the sink; what it refuses meanwhile is counted. */
  async close(): Promise<void> {
    this.handOver()
    await this.sink.close()
    await this.settled()
    // Stopping ends the episode: its line is not left unsaid when the sink took clicks at the last.
    if (this.takenSinceRefusal) this.recovered()
    if (this.recovery !== undefined) clearTimeout(this.recovery)
  }
}
