import type { LinkRecord } from "../../shared/links/linkRecord.ts"
import { linkKey } from "./linkStore.ts"

const MAX_BATCH = 500

type HostSlug = { readonly host: string; readonly slug: string }

interface Waiting extends HostSlug {
  readonly resolve: (record: LinkRecord | null) => void
  readonly reject: (error: unknown) => void
}

/** Link misses of one event-loop turn share a query (up to MAX_BATCH keys each). */
export class MissBatcher {
  private batch: Array<Waiting> = []

  /** `query`: many links in one query, keyed `host\nslug` (LinkSource.links, through the guard). */
  constructor(private readonly query: (keys: ReadonlyArray<HostSlug>) => Promise<Map<string, LinkRecord>>) {}

  load(host: string, slug: string): Promise<LinkRecord | null> {
    return new Promise((resolve, reject) => {
      if (this.batch.length === 0) setImmediate(() => this.flush())
      this.batch.push({ host, slug, resolve, reject })
    })
  }

  private flush(): void {
    const waiting = this.batch
    this.batch = []
    for (let start = 0; start < waiting.length; start += MAX_BATCH) {
      const chunk = waiting.slice(start, start + MAX_BATCH)
      this.query(chunk).then(
        (found) => {
          for (const w of chunk) w.resolve(found.get(linkKey(w.host, w.slug)) ?? null)
        },
        (error) => {
          for (const w of chunk) w.reject(error)
        }
      )
    }
  }
}
