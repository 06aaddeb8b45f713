import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from "react"
import type { LiveClick, LiveLinkChange } from "../../../control/live/schema.ts"
import { currentApiKey } from "../api/credentials.ts"

export type { LiveClick, LiveLinkChange }

interface Live {
  /** The latest visits, newest first. */
  readonly recent: ReadonlyArray<LiveClick>
  readonly connected: boolean
  readonly onClick: (listener: (click: LiveClick) => void) => () => void
  readonly onLink: (listener: (change: LiveLinkChange) => void) => () => void
}

const LiveContext = createContext<Live | undefined>(undefined)
const RECENT = 20

/** Reads `event:`/`data:` blocks of a text/event-stream as they arrive. */
const readEvents = async (body: ReadableStream<Uint8Array>, onEvent: (type: string, data: string) => void) => {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let type = "message"
      const data: Array<string> = []
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) type = line.slice(6).trim()
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart())
      }
      if (data.length > 0) onEvent(type, data.join("\n"))
    }
  }
}

/**
 * The workspace's live events (GET /v1/events, server-sent events): new clicks within a second or
 * two of the visit, and link changes. One stream per signed-in tab, over fetch so an API key can
 * authenticate it as well as the cookie; it reconnects after a pause when control closes it
 * (a restart, the per-workspace bound), and stops for good on 401 or 403.
 */
export const LiveEventsProvider = ({ workspaceId, children }: { workspaceId: string; children: ReactNode }) => {
  const [recent, setRecent] = useState<ReadonlyArray<LiveClick>>([])
  const [connected, setConnected] = useState(false)
  const clicks = useRef(new Set<(click: LiveClick) => void>())
  const links = useRef(new Set<(change: LiveLinkChange) => void>())
  useEffect(() => {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const connect = async (): Promise<void> => {
      const key = currentApiKey()
      const response = await fetch("/v1/events", {
        credentials: "same-origin",
        headers: { accept: "text/event-stream", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        signal: controller.signal
      }).catch(() => undefined)
      if (controller.signal.aborted) return
      if (response?.ok && response.body) {
        setConnected(true)
        await readEvents(response.body, (type, data) => {
          const event: unknown = JSON.parse(data)
          if (type === "click") {
            const click = event as LiveClick
            setRecent((list) => [click, ...list].slice(0, RECENT))
            clicks.current.forEach((l) => l(click))
          } else if (type === "link") {
            links.current.forEach((l) => l(event as LiveLinkChange))
          }
        }).catch(() => undefined)
        setConnected(false)
      }
      if (controller.signal.aborted || response?.status === 401 || response?.status === 403) return
      const retryAfter = Number(response?.headers.get("retry-after"))
      timer = setTimeout(connect, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 5_000)
    }
    connect()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [workspaceId])
  const subscribe = <T,>(set: Set<(value: T) => void>) => (listener: (value: T) => void) => {
    set.add(listener)
    return () => {
      set.delete(listener)
    }
  }
  return (
    <LiveContext.Provider value={{ recent, connected, onClick: subscribe(clicks.current), onLink: subscribe(links.current) }}>
      {children}
    </LiveContext.Provider>
  )
}

export const useLive = (): Live => {
  const live = useContext(LiveContext)
  if (live === undefined) throw new Error("useLive outside LiveEventsProvider")
  return live
}

/** Calls `listener` for each new click while the component is shown. */
export const useLiveClicks = (listener: (click: LiveClick) => void) => {
  const { onClick } = useLive()
  const latest = useRef(listener)
  latest.current = listener
  useEffect(() => onClick((click) => latest.current(click)), [onClick])
}

/** Calls `listener` for each link created, changed or deleted while the component is shown. */
export const useLiveLinks = (listener: (change: LiveLinkChange) => void) => {
  const { onLink } = useLive()
  const latest = useRef(listener)
  latest.current = listener
  useEffect(() => onLink((change) => latest.current(change)), [onLink])
}
