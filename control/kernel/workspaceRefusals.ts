import { Data } from "effect"

/** Refusals of the workspace commands (CLI); each message is what the CLI prints. */
export class WorkspaceUnknown extends Data.TaggedError("WorkspaceUnknown")<{ readonly message: string }> {
  static of(id: string) {
    return new WorkspaceUnknown({ message: `No workspace with id ${id}` })
  }
}
export class WorkspaceNameInvalid extends Data.TaggedError("WorkspaceNameInvalid")<{ readonly message: string }> {}
export class PlanInvalid extends Data.TaggedError("PlanInvalid")<{ readonly message: string }> {}

export type WorkspaceRefusal = WorkspaceUnknown | WorkspaceNameInvalid | PlanInvalid
