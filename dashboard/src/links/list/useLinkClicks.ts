import { useEffect, useRef, useState } from "react"
import { call } from "../../api/client.ts"
import type { ApiFailure } from "../../api/failure.ts"

/** Ids per request: what GET /v1/analytics/dashboard takes in `linkIds`. */
const PER_REQUEST = 100

export interface LinkClicks {
  /** A link's clicks over all time: a number once answered, undefined while asked, null when the question failed. */
  readonly of: (linkId: string) => number | null | undefined
  readonly failure: ApiFailure | undefined
  readonly retry: () => void
  /** Live clicks: added to what was answered. */
  readonly add: (linkId: string, clicks: number) => void
}

/**
 * The clicks of exactly the links shown, asked by id (one analytics allowance per page of links):
 * no link is shown 0 because it fell outside a top list, and a failed question shows as unknown.
 */
export const useLinkClicks = (linkIds: ReadonlyArray<string>): LinkClicks => {
  const [counts, setCounts] = useState<ReadonlyMap<string, number | null>>(new Map())
  const [failure, setFailure] = useState<ApiFailure>()
  const [round, setRound] = useState(0)
  const asked = useRef(new Set<string>())
  const key = linkIds.join(",")
  useEffect(() => {
    const missing = linkIds.filter((id) => !asked.current.has(id))
    if (missing.length === 0) return
    const controller = new AbortController()
    const settled = new Set<string>()
    for (const id of missing) asked.current.add(id)
    const batches: Array<ReadonlyArray<string>> = []
    for (let i = 0; i < missing.length; i += PER_REQUEST) batches.push(missing.slice(i, i + PER_REQUEST))
    for (const ids of batches) {
      call((c) => c.analytics.dashboard({ query: { interval: "all", linkIds: ids.join(","), include: "top_links" } }), { signal: controller.signal })
        .then((outcome) => {
          if (controller.signal.aborted) return
          for (const id of ids) settled.add(id)
          if (!outcome.ok) {
            for (const id of ids) asked.current.delete(id)
            setFailure(outcome.failure)
            setCounts((m) => new Map([...m, ...ids.map((id) => [id, null] as const)]))
            return
          }
          const rows = outcome.value.breakdowns.top_links ?? []
          const answered = new Map<string, number>(ids.map((id) => [id, 0]))
          for (const row of rows) if ("linkId" in row) answered.set(row.linkId, row.clicks)
          setCounts((m) => new Map([...m, ...answered]))
        })
    }
    return () => {
      controller.abort()
      for (const id of missing) if (!settled.has(id)) asked.current.delete(id)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, round])
  return {
    of: (id) => counts.get(id),
    failure,
    retry: () => {
      setFailure(undefined)
      setCounts((m) => new Map([...m].filter(([, v]) => v !== null)))
      setRound((n) => n + 1)
    },
    add: (id, clicks) => setCounts((m) => {
      const now = m.get(id)
      return typeof now === "number" ? new Map(m).set(id, now + clicks) : m
    })
  }
}
