import { ApiError } from "./errors.ts"

/**
 * The 422s of a request naming another resource that is not the workspace's: a folder or tags of
 * a link, the link, domain or slug of an analytics question. Shared by the resources that refer
 * to each other, so none of them imports another for its errors.
 */

const unknownReference = (field: string, what: string) => ({
  code: "unprocessable_entity",
  description: `${what} that is not the workspace's (an unknown_reference issue at ${field})`,
  issue: { code: "unknown_reference", field }
} as const)

/** 422: a folder id that is not the workspace's. */
export class FolderUnknown extends ApiError<FolderUnknown>()("FolderUnknown", unknownReference("folderId", "A folder id")) {}

/** 422: a tag id that is not the workspace's. */
export class TagUnknown extends ApiError<TagUnknown>()("TagUnknown", unknownReference("tagIds", "A tag id")) {}

/** 422: a host that is not one of the workspace's domains. */
export class DomainUnknown extends ApiError<DomainUnknown>()("DomainUnknown", unknownReference("domain", "A domain")) {}

/** 422: a link id (in an analytics question) that is not the workspace's. */
export class LinkUnknown extends ApiError<LinkUnknown>()("LinkUnknown", unknownReference("linkId", "A link id")) {}

/** 422: a slug (in an analytics question) that names no link on its domain. */
export class SlugUnknown extends ApiError<SlugUnknown>()("SlugUnknown", unknownReference("slug", "A slug")) {}
