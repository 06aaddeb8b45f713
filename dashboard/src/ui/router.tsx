import { type AnchorHTMLAttributes, useEffect, useState } from "react"

/** Client-side routes on the History API; control answers every such path with index.html. */
const listeners = new Set<() => void>()

export const navigate = (to: string) => {
  window.history.pushState(null, "", to)
  listeners.forEach((l) => l())
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
