import { argon2id, argon2Verify } from "hash-wasm"
import { randomBytes } from "node:crypto"
import { randomBase62 } from "../../shared/ids.ts"

/** argon2id with OWASP's baseline (19 MiB, 2 passes, 1 lane), as link passwords. */
export const hashPassword = (password: string): Promise<string> =>
  argon2id({ password, salt: randomBytes(16), memorySize: 19_456, iterations: 2, parallelism: 1, hashLength: 32, outputType: "encoded" })

// Checked when no such user exists, so a wrong email takes as long as a wrong password.
let decoy: Promise<string> | undefined

/** Whether `password` matches `hash`; with no hash, false after the same work. */
export const verifyPassword = async (password: string, hash: string | null | undefined): Promise<boolean> => {
  if (hash === null || hash === undefined) {
    await argon2Verify({ password, hash: await (decoy ??= hashPassword(randomBase62(16))) }).catch(() => false)
    return false
  }
  return argon2Verify({ password, hash }).catch(() => false)
}

/** A password printed once for a new or reset account: 20 base62 characters (119 bits). */
export const generatePassword = (): string => randomBase62(20)
