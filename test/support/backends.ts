import { createTestDatabase, removeDir, startControl, tempDir, type ControlHandle } from "./processes.ts"

/**
 * A control process on PostgreSQL or on the embedded default, and how to stop it: npm start
 * (control and an engine), or with `withEngine: false` control alone (ricochet control), for a file
 * that never asks the engine anything and need not start its threads.
 */
export interface Backend {
  readonly control: ControlHandle
  readonly stop: () => Promise<void>
}

export const BACKENDS = ["postgres", "embedded"] as const

export const startBackend = async (
  kind: (typeof BACKENDS)[number],
  env: Record<string, string | undefined> = {},
  options: { readonly withEngine?: boolean } = {}
): Promise<Backend> => {
  const dir = await tempDir()
  const db = kind === "postgres" ? await createTestDatabase() : undefined
  const control = await startControl({
    RICOCHET_DATA_DIR: dir,
    DATABASE_URL: db?.url,
    ...(db === undefined ? { NATS_URL: undefined } : {}),
    ...env
  }, options.withEngine === false)
  return {
    control,
    stop: async () => {
      await control.stop()
      await db?.drop()
      await removeDir(dir)
    }
  }
}
