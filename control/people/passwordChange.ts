import type { Sql, TransactionSql } from "postgres"

/** A person's own password, in plain SQL: what a change is checked against, and the change. */

export interface OwnPassword {
  readonly email: string
  readonly passwordHash: string | null
}

export const passwordOf = async (sql: Sql, userId: string): Promise<OwnPassword | undefined> => {
  const [row] = await sql<{ email: string | null; password_hash: string | null }[]>`
    SELECT email, password_hash FROM users WHERE id = ${userId}`
  return row === undefined ? undefined : { email: row.email ?? "", passwordHash: row.password_hash }
}

/**
 * Replaces the password whose hash was checked (`checkedHash`): false when it changed meanwhile
 * (another change, a reset), so the one checked is no longer the one replaced. A one-time password
 * stops being one, and every session of the user but `keepSessionId` ends.
 */
export const replacePassword = async (
  tx: TransactionSql,
  change: { readonly userId: string; readonly checkedHash: string; readonly newHash: string; readonly keepSessionId: string }
): Promise<boolean> => {
  const replaced = await tx`
    UPDATE users SET password_hash = ${change.newHash}, must_change_password = false
    WHERE id = ${change.userId} AND password_hash = ${change.checkedHash}`
  if (replaced.count === 0) return false
  await tx`UPDATE sessions SET revoked_at = now()
           WHERE user_id = ${change.userId} AND id <> ${change.keepSessionId} AND revoked_at IS NULL`
  return true
}
