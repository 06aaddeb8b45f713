import { type Tag, TAG_COLORS } from "../../../control/tags/schema.ts"
import { call } from "../api/client.ts"
import { NamedList, type NamedListOf } from "../ui/NamedList.tsx"
import { useWorkspaceLists } from "../workspace/WorkspaceLists.tsx"

type Color = (typeof TAG_COLORS)[number]
const isColor = (c: string | null): c is Color => c !== null && (TAG_COLORS as ReadonlyArray<string>).includes(c)

const tags: NamedListOf<Tag> = {
  noun: "tag",
  title: "Tags",
  purpose: "Tags group links across folders: filter the links table by them, or count their clicks together.",
  colors: TAG_COLORS,
  onDelete: "Its links stay, untagged.",
  create: (name, color) => call((c) => c.tags.create({ payload: isColor(color) ? { name, color } : { name } })),
  update: (tag, name, color) => call((c) => c.tags.update({ params: { id: tag.id }, payload: { name, color: isColor(color) ? color : null } })),
  remove: (tag) => call((c) => c.tags.delete({ params: { id: tag.id } }))
}

/** Tags: create, rename, recolour, delete. */
export const TagsPage = () => <NamedList of={tags} list={useWorkspaceLists().tags} />
