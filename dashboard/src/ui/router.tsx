import { type AnchorHTMLAttributes, useEffect, useState } from "react"

/** Client-side routes on the History API; control answers every such path with index.html. */
const listeners = new Set<() => void>()

/** What a page with unsaved changes asks before the app leaves it (undefined: nothing to lose). */
let leaving: string | undefined

/** `force`: the page itself moves on (its changes were just saved), nothing to ask. */
export const navigate = (to: string, options: { readonly replace?: boolean; readonly force?: boolean } = {}) => {
  if (leaving !== undefined && !options.force && !window.confirm(leaving)) return
  leaving = undefined
  if (options.replace) window.history.replaceState(null, "", to)
  else window.history.pushState(null, "", to)
  listeners.forEach((l) => l())
}

/**
 * While `message` is set, leaving the page asks first: in-app links through `navigate`, closing
 * or reloading the tab through the browser's own prompt.
 */
export const useLeaveWarning = (message: string | undefined) => {
  useEffect(() => {
    if (message === undefined) return
    leaving = message
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault()
    }
    window.addEventListener("beforeunload", beforeUnload)
    return () => {
      if (leaving === message) leaving = undefined
      window.removeEventListener("beforeunload", beforeUnload)
    }
  }, [message])
}

export const useLocation = (): URL => {
  const [, setTick] = useState(0)
  useEffect(() => {
    const update = () => setTick((n) => n + 1)
    listeners.add(update)
    window.addEventListener("popstate", update)
    return () => {
      listeners.delete(update)
      window.removeEventListener("popstate", update)
    }
  }, [])
  return new URL(window.location.href)
}

/** An in-app link: a real anchor (keyboard, middle-click, copy address) that navigates without a reload. */
export const Link = ({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) => (
  <a
    {...rest}
    href={to}
    onClick={(event) => {
      rest.onClick?.(event)
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      navigate(to)
    }}
  />
)
