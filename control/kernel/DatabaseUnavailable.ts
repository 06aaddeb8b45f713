import { ErrorReporter, Schema } from "effect"

/**
 * The database could not be reached or did not answer in time: a failure of the moment, which a
 * caller may retry. It says nothing about HTTP; the API answers it 503 (kernel/errors.ts), the
 * CLI prints its message.
 */
export class DatabaseUnavailable extends Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", {
  message: Schema.String
}) {
  // Expected during an outage, which control/db/sql.ts logs once as it begins and ends.
  readonly [ErrorReporter.ignore] = true

  static readonly now = (): DatabaseUnavailable => new DatabaseUnavailable({ message: "The database is unavailable right now" })
}
