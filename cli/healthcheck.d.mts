// Types of cli/healthcheck.mjs, for the tests that import it (the script itself is plain JavaScript).
export declare const roleOf: (argv: ReadonlyArray<string>) => "control" | "engine" | "all" | undefined
export declare const probesFor: (role: "control" | "engine" | "all", env: Readonly<Record<string, string | undefined>>) => Array<string>
