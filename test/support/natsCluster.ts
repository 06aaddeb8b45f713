import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { connect } from "nats"
import { freePort } from "./processes.ts"

/**
 * A NATS cluster with JetStream on loopback ports, started by the test: each node with its own
 * store directory under `dir`, so a node (or all of them) can be stopped and started again on
 * the same ports with what it stored.
 */
export const startNatsCluster = async (dir: string, size = 3) => {
  const nodes = await Promise.all(Array.from({ length: size }, async (_, i) => ({
    name: `n${i + 1}`,
    port: await freePort(),
    clusterPort: await freePort(),
    storeDir: path.join(dir, `n${i + 1}`),
    child: undefined as ChildProcess | undefined
  })))
  const routes = nodes.map((n) => `nats://127.0.0.1:${n.clusterPort}`).join(",")
  const start = (i: number) => {
    const node = nodes[i]!
    if (node.child !== undefined && node.child.exitCode === null && node.child.signalCode === null) return
    node.child = spawn("/usr/sbin/nats-server", [
      "-a", "127.0.0.1", "-p", String(node.port), "--server_name", node.name, "-js", "-sd", node.storeDir,
      "--cluster_name", "ricochet-test", "--cluster", `nats://127.0.0.1:${node.clusterPort}`, "--routes", routes
    ], { stdio: "ignore" })
  }
  const stop = async (i: number, signal: NodeJS.Signals = "SIGTERM") => {
    const child = nodes[i]!.child
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve())
      child.kill(signal)
    })
  }
  /** Until JetStream answers through every node (a meta leader is elected). */
  const ready = async (timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs
    for (const node of nodes) {
      if (node.child === undefined || node.child.exitCode !== null) continue
      for (;;) {
        const ok = await (async () => {
          const nc = await connect({ servers: `nats://127.0.0.1:${node.port}`, timeout: 1_000 })
          try {
            await (await nc.jetstreamManager({ timeout: 2_000 })).getAccountInfo()
            return true
          } finally {
            await nc.close()
          }
        })().catch(() => false)
        if (ok) break
        if (Date.now() > deadline) throw new Error(`NATS node ${node.name} has no JetStream after ${timeoutMs} ms`)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
    }
  }
  /**
   * Until a stream has a leader and every other replica is current: a node killed next leaves a
   * quorum that holds everything (killing one while another still catches up is two nodes down).
   */
  const replicasCurrent = async (stream: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const current = await (async () => {
        const node = nodes.find((n) => n.child !== undefined && n.child.exitCode === null && n.child.signalCode === null)!
        const nc = await connect({ servers: `nats://127.0.0.1:${node.port}`, timeout: 1_000 })
        try {
          const { cluster } = await (await nc.jetstreamManager({ timeout: 2_000 })).streams.info(stream)
          const replicas = cluster?.replicas ?? []
          return cluster?.leader !== undefined && replicas.length === size - 1 && replicas.every((r) => r.current && r.offline !== true)
        } finally {
          await nc.close()
        }
      })().catch(() => false)
      if (current) return
      if (Date.now() > deadline) throw new Error(`stream ${stream} has replicas not current after ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  for (let i = 0; i < size; i++) start(i)
  await ready()
  return {
    /** Every node's client URL, for NATS_URL (each process given a different first one). */
    urls: nodes.map((n) => `nats://127.0.0.1:${n.port}`),
    start,
    stop,
    ready,
    replicasCurrent,
    stopAll: () => Promise.all(nodes.map((_, i) => stop(i))),
    startAll: async () => {
      for (let i = 0; i < size; i++) start(i)
      await ready()
    }
  }
}
