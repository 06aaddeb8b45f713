import { Effect, Predicate } from "effect"
import type { Sql, TransactionSql } from "postgres"
import { Database, DatabaseError, isUniqueViolation } from "../../shared/db/Database.ts"
import type { OutageLog } from "../../shared/db/outageLog.ts"
import { isDatabaseUnavailable } from "../../shared/db/unavailable.ts"
import { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { hooked } from "./callHooks.ts"
import { inCallbackScope } from "./callbackScope.ts"

/**
 * Database work as Effects. Repositories write SQL with the `postgres` client and run each
 * statement with `run`; a repository operation is `query` (one call on the pool) or `transaction`.
 * A database that cannot be reached or does not answer within RICOCHET_DB_TIMEOUT_SECONDS is a
 * DatabaseUnavailable (the API answers it 503); any other failure of a statement that the
 * repository did not handle (as it handles a unique violation it expects) is unexpected: a defect.
 * Each operation runs inside the process's hooks (callHooks.ts): metrics, wake-ups after commit.
 * Calls tell the outage log of the Database they run on (shared/db/outageLog.ts) whether it answered.
 */

const unavailable = (outage: OutageLog, cause: unknown): DatabaseUnavailable => {
  outage.unavailable(cause)
  return DatabaseUnavailable.now()
}

/**
 * One call of the `postgres` client (or of another store: DuckDB, DNS and a row update), told to
 * the outage log of the Database it runs on.
 */
export const run = <A>(call: () => PromiseLike<A>): Effect.Effect<A, DatabaseUnavailable | DatabaseError, Database> =>
  Effect.flatMap(Effect.service(Database), ({ outage }) =>
    Effect.tryPromise({
      try: () =>
        Promise.resolve(call()).then((value) => {
          outage.answered()
          return value
        }),
      catch: (cause) => (isDatabaseUnavailable(cause) ? unavailable(outage, cause) : new DatabaseError({ cause }))
    }))

/** What a repository operation hands its caller: failures it did not handle are defects. */
const settle = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, DatabaseError>, R> =>
  effect.pipe(
    Effect.catchIf(
      (error): error is Extract<E, DatabaseError> => Predicate.isTagged(error, "DatabaseError"),
      (error) => Effect.die(error)
    )
  ) as Effect.Effect<A, Exclude<E, DatabaseError>, R>

/**
 * The database deadline of an API call: past it the call is answered 503 while the pool's own
 * bounds (see shared/db/client.ts) end the statement or the connection behind it.
 */
const withDeadline = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(Database), ({ outage, queryTimeoutMs }) =>
    queryTimeoutMs === undefined
      ? effect
      : Effect.timeoutOrElse(effect, {
        duration: queryTimeoutMs,
        orElse: () => Effect.fail(unavailable(outage, new Error(`no answer within ${queryTimeoutMs} ms`)))
      }))

/** Work on the pool outside a transaction, its calls made with `run`, within the deadline. */
export const onPool = <A, E, R>(
  work: (sql: Sql) => Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, DatabaseError> | DatabaseUnavailable, R | Database> =>
  Effect.flatMap(Effect.service(Database), ({ sql }) => withDeadline(settle(work(sql))))

/** One call on the pool, within the deadline. */
export const query = <A>(call: (sql: Sql) => PromiseLike<A>): Effect.Effect<A, DatabaseUnavailable, Database> =>
  hooked(onPool((sql) => run(() => call(sql))))

/** A unique violation of the statement(s) is `onTaken` (a name or slug already used). */
export const uniqueViolation = <E2>(onTaken: () => E2) => <A, E, R>(effect: Effect.Effect<A, E | DatabaseError, R>) =>
  Effect.catchIf(
    effect,
    (error): error is DatabaseError => Predicate.isTagged(error, "DatabaseError") && isUniqueViolation((error as DatabaseError).cause),
    () => Effect.fail(onTaken())
  )

/** Work that is not bounded by the database deadline (a DNS check, a DuckDB query): failures as `query`'s. */
export const attempt = <A>(call: () => PromiseLike<A>): Effect.Effect<A, DatabaseUnavailable, Database> => settle(run(call))

/**
 * Runs `body` in one transaction, within the deadline. The body runs in the calling fiber (see
 * callbackScope.ts): it commits when it succeeds, rolls back when it fails (its failure is what
 * the caller sees) and when the deadline interrupts it: a body cut short never commits after
 * its caller was answered 503. A failing BEGIN or COMMIT is a failure of the call, as `run`'s.
 */
export const transaction = <A, E, R>(
  body: (tx: TransactionSql) => Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, DatabaseError> | DatabaseUnavailable, R | Database> =>
  Effect.flatMap(Effect.service(Database), ({ sql }) =>
    hooked(withDeadline(settle(inCallbackScope((callback) => sql.begin(callback), body, run)))))

/**
 * Runs `body` in a savepoint of `tx`, in the calling fiber as a transaction's body: a failure of
 * the body rolls back its own writes only, and is what the caller sees, while the transaction goes on. Lets one transaction (one commit) carry
 * many independent items, as an import's batch does.
 */
export const savepoint = <A, E, R>(
  tx: TransactionSql,
  body: (sp: TransactionSql) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | DatabaseUnavailable | DatabaseError, R | Database> =>
  inCallbackScope((callback) => tx.savepoint(callback), body, run)
