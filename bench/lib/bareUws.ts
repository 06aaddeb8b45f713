import uWS from "uWebSockets.js"

/**
 * The redirect-hit baseline: bare uWebSockets.js answering every request with a fixed 302 and a
 * Location header, nothing else. Run as a child process: `node --import tsx bench/lib/bareUws.ts PORT`.
 * Prints "listening PORT" once bound.
 */
const port = Number(process.argv[2] ?? 0)
const location = "https://example.com/landing/page?utm_source=bench&utm_medium=load"

// As the engine: no `uWebSockets: 20` header, so both write the same bytes per answer.
uWS._cfg("silent")
uWS.App()
  .any("/*", (res) => {
    res.writeStatus("302 Found").writeHeader("location", location).end()
  })
  .listen("127.0.0.1", port, (token) => {
    if (!token) {
      console.error(`bareUws: could not listen on 127.0.0.1:${port}`)
      process.exit(1)
    }
    console.log(`listening ${uWS.us_socket_local_port(token)}`)
  })

process.on("SIGTERM", () => process.exit(0))
