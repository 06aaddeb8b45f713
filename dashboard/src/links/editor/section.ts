import type { ApiFailure } from "../../api/failure.ts"
import type { LinkForm } from "../linkForm.ts"

/** What every section of the editor is handed: the form, how to change one field, the last failure. */
export interface SectionProps {
  readonly form: LinkForm
  readonly set: <K extends keyof LinkForm>(key: K, value: LinkForm[K]) => void
  readonly failure: ApiFailure | undefined
}
