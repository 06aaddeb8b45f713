import { type Tag, TAG_COLORS } from "../../../control/tags/schema.ts"
import { call } from "../api/client.ts"
import { NamedList, type NamedListOf } from "../ui/NamedList.tsx"

type Color = (typeof TAG_COLORS)[number]

const tags: NamedListOf<Tag> = {
  noun: "tag",
  title: "Tags",
  colors: TAG_COLORS,
  onDelete: "Its links stay, untagged.",
  list: () => call((c) => c.tags.list()),
  create: (name, color) => call((c) => c.tags.create({ payload: color === null ? { name } : { name, color: color as Color } })),
  update: (tag, name, color) => call((c) => c.tags.update({ params: { id: tag.id }, payload: { name, color: color as Color | null } })),
  remove: (tag) => call((c) => c.tags.delete({ params: { id: tag.id } }))
}

/** Tags: create, rename, recolour, delete. */
export const TagsPage = () => <NamedList of={tags} />
