import { createContext, type ReactNode, useContext } from "react"
import type { Domain } from "../../../control/domains/schema.ts"
import type { Folder } from "../../../control/folders/schema.ts"
import type { Tag } from "../../../control/tags/schema.ts"
import { call } from "../api/client.ts"
import type { Outcome } from "../api/failure.ts"
import { type ApiState, useAsync } from "../api/useApi.ts"

/**
 * The workspace's tags, folders and domains, asked once when its pages open (and again when one
 * of them changes them), shared by every page that offers them in a picker or a filter.
 */
export interface WorkspaceLists {
  readonly tags: ApiState<ReadonlyArray<Tag>>
  readonly folders: ApiState<ReadonlyArray<Folder>>
  readonly domains: ApiState<ReadonlyArray<Domain>>
}

const Lists = createContext<WorkspaceLists | undefined>(undefined)

export const WorkspaceListsProvider = ({ workspaceId, children }: { workspaceId: string; children: ReactNode }) => {
  const tags = useAsync((signal) => call((c) => c.tags.list(), { signal }).then(dataOf), [workspaceId])
  const folders = useAsync((signal) => call((c) => c.folders.list(), { signal }).then(dataOf), [workspaceId])
  const domains = useAsync((signal) => call((c) => c.domains.list(), { signal }).then(dataOf), [workspaceId])
  return <Lists.Provider value={{ tags, folders, domains }}>{children}</Lists.Provider>
}

const dataOf = <A,>(outcome: Outcome<{ readonly data: A }>): Outcome<A> => (outcome.ok ? { ok: true, value: outcome.value.data } : outcome)

export const useWorkspaceLists = (): WorkspaceLists => {
  const lists = useContext(Lists)
  if (lists === undefined) throw new Error("useWorkspaceLists outside WorkspaceListsProvider")
  return lists
}
