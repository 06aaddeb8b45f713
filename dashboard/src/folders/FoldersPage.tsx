import type { Folder } from "../../../control/folders/schema.ts"
import { call } from "../api/client.ts"
import { NamedList, type NamedListOf } from "../ui/NamedList.tsx"
import { useWorkspaceLists } from "../workspace/WorkspaceLists.tsx"

const folders: NamedListOf<Folder> = {
  noun: "folder",
  title: "Folders",
  purpose: "A folder holds links that belong together: a campaign, a team, a product.",
  onDelete: "Its links stay, outside any folder.",
  create: (name) => call((c) => c.folders.create({ payload: { name } })),
  update: (folder, name) => call((c) => c.folders.update({ params: { id: folder.id }, payload: { name } })),
  remove: (folder) => call((c) => c.folders.delete({ params: { id: folder.id } }))
}

/** Folders: create, rename, delete. */
export const FoldersPage = () => <NamedList of={folders} list={useWorkspaceLists().folders} />
