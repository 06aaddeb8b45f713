import { ApiError } from "../kernel/errors.ts"

/** 404: no link with that id (or domain and slug) in the workspace. */
export class LinkNotFound extends ApiError<LinkNotFound>()("LinkNotFound", {
  code: "not_found",
  description: "No such link in this workspace"
}) {
  static readonly make = (): LinkNotFound => new LinkNotFound({ message: "Link not found" })
}

/** 409: the slug is already used on that domain (or no free random slug was found). */
export class SlugTaken extends ApiError<SlugTaken>()("SlugTaken", {
  code: "conflict",
  description: "The slug is already used on that domain"
}) {}

