// A plain TCP proxy in a process of its own, for the cluster suite: the instances reach PostgreSQL through it, and
// SIGSTOP freezes every link at once (the kernel still accepts connections and buffers what is sent; nothing is
// forwarded either way) until SIGCONT. In its own process so that the suite's own work (the load generator, a
// spawned CLI) never stalls the links by accident.
//   node tcp-proxy.mjs <listen port> <target host> <target port>     prints "listening" once ready
import net from "node:net";

const [listenPort, targetHost, targetPort] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(Number(targetPort), targetHost);
  client.pipe(upstream);
  upstream.pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close);
  upstream.on("error", close);
  client.on("close", close);
  upstream.on("close", close);
});
server.listen(Number(listenPort), "127.0.0.1", () => process.stdout.write("listening\n"));
process.on("SIGTERM", () => process.exit(0));
