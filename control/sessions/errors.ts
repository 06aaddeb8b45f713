import { ApiError } from "../kernel/errors.ts"

/** 404: the user is not a member of that workspace (or it does not exist: the same answer). */
export class NotAMember extends ApiError<NotAMember>()("NotAMember", {
  code: "not_found",
  description: "No workspace with that id among the user's workspaces"
}) {
  static readonly of = (workspaceId: string): NotAMember =>
    new NotAMember({ message: `No workspace ${JSON.stringify(workspaceId)} among your workspaces` })
}
