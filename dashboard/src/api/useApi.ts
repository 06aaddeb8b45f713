import type { Effect } from "effect"
import { type DependencyList, useCallback, useEffect, useRef, useState } from "react"
import { call, type Client } from "./client.ts"
import type { ApiFailure, Outcome } from "./failure.ts"

export interface ApiState<A> {
  /** The last answer; undefined while the first (or, after the inputs changed, the new) one loads, or after a failure. */
  readonly data: A | undefined
  readonly failure: ApiFailure | undefined
  readonly loading: boolean
  /** Asks again with the same inputs; what is shown stays until the new answer replaces it. */
  readonly reload: () => void
  /** Changes what is shown without asking (an item just saved). */
  readonly update: (change: (data: A | undefined) => A | undefined) => void
}

/**
 * One request's life on a page: loading, then an answer or a failure, never both, and never a
 * stale answer beside a failure. When the inputs (`deps`) change, the old answer goes (so a number
 * is never shown for a question it did not answer) and the previous request is aborted; on
 * unmount too.
 */
export const useAsync = <A>(run: (signal: AbortSignal) => Promise<Outcome<A>>, deps: DependencyList): ApiState<A> => {
  const [state, setState] = useState<{ data: A | undefined; failure: ApiFailure | undefined; loading: boolean }>({
    data: undefined,
    failure: undefined,
    loading: true
  })
  const [round, setRound] = useState(0)
  const latest = useRef(run)
  latest.current = run
  const depsKey = useRef<DependencyList>(deps)
  useEffect(() => {
    const controller = new AbortController()
    const fresh = depsKey.current !== deps
    depsKey.current = deps
    setState((s) => ({ data: fresh ? undefined : s.data, failure: undefined, loading: true }))
    latest.current(controller.signal).then((outcome) => {
      if (controller.signal.aborted) return
      setState(outcome.ok
        ? { data: outcome.value, failure: undefined, loading: false }
        : { data: undefined, failure: outcome.failure, loading: false })
    })
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round])
  const reload = useCallback(() => setRound((n) => n + 1), [])
  const update = useCallback((change: (data: A | undefined) => A | undefined) => setState((s) => ({ ...s, data: change(s.data) })), [])
  return { ...state, reload, update }
}

/** useAsync of one call of the typed client. */
export const useApi = <A, E>(f: (client: Client) => Effect.Effect<A, E>, deps: DependencyList): ApiState<A> =>
  useAsync((signal) => call(f, { signal }), deps)
