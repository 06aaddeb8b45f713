import { useCallback, useEffect, useRef, useState } from "react"
import type { Link } from "../../../../control/links/schema.ts"
import { call } from "../../api/client.ts"
import type { ApiFailure } from "../../api/failure.ts"

export interface LinkFilters {
  readonly search: string
  readonly domain: string
  readonly folderId: string
  readonly tagIds: ReadonlyArray<string>
}

export const NO_FILTERS: LinkFilters = { search: "", domain: "", folderId: "", tagIds: [] }

export const filtering = (f: LinkFilters) => f.search !== "" || f.domain !== "" || f.folderId !== "" || f.tagIds.length > 0

const PAGE = 25

const queryOf = (f: LinkFilters, after: string | null) => ({
  limit: PAGE,
  ...(f.search ? { search: f.search } : {}),
  ...(f.domain ? { domain: f.domain } : {}),
  ...(f.folderId ? { folderId: f.folderId } : {}),
  ...(f.tagIds.length > 0 ? { tagIds: f.tagIds.join(",") } : {}),
  ...(after ? { cursor: after } : {})
})

export interface LinkList {
  /** undefined until the first page of these filters has answered. */
  readonly links: ReadonlyArray<Link> | undefined
  readonly failure: ApiFailure | undefined
  readonly loading: boolean
  readonly more: boolean
  readonly loadMore: () => void
  readonly refresh: () => void
}

/**
 * The links of the workspace, newest first, page by page: "Load more" follows the cursor, so pages
 * hold while links are added. A search waits for typing to pause; a change of filters aborts the
 * request of the old ones.
 */
export const useLinkList = (filters: LinkFilters): LinkList => {
  const [links, setLinks] = useState<ReadonlyArray<Link>>()
  const [cursor, setCursor] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [failure, setFailure] = useState<ApiFailure>()
  const current = useRef<AbortController>(undefined)

  const load = useCallback(async (f: LinkFilters, after: string | null) => {
    current.current?.abort()
    const controller = new AbortController()
    current.current = controller
    setLoading(true)
    setFailure(undefined)
    const outcome = await call((c) => c.links.list({ query: queryOf(f, after) }), { signal: controller.signal })
    if (controller.signal.aborted) return
    setLoading(false)
    if (!outcome.ok) {
      if (!after) setLinks(undefined)
      return setFailure(outcome.failure)
    }
    setLinks((previous) => (after ? [...(previous ?? []), ...outcome.value.data] : outcome.value.data))
    setCursor(outcome.value.nextCursor)
  }, [])

  const key = JSON.stringify(filters)
  useEffect(() => {
    setLinks(undefined)
    const timer = setTimeout(() => load(filters, null), filters.search ? 250 : 0)
    return () => {
      clearTimeout(timer)
      current.current?.abort()
    }
  }, [key, load])

  return {
    links,
    failure,
    loading,
    more: cursor !== null,
    loadMore: () => load(filters, cursor),
    refresh: () => load(filters, null)
  }
}
