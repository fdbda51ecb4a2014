/**
 * The container image's HEALTHCHECK (Dockerfile, deploy/compose.yaml): exits 0 when this
 * container's process answers `GET /readyz` with 200. The API listens on PORT, the worker on
 * SVC_WORKER_METRICS_PORT; a port nothing listens on is not this process's and is skipped. A 503
 * (a dependency failing, or draining after SIGTERM) exits 1, as does no answer at all.
 */
const ports = [process.env.PORT ?? '8080', process.env.SVC_WORKER_METRICS_PORT].filter((port): port is string => Boolean(port));
for (const port of ports) {
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5_000) });
  } catch {
    continue;
  }
  process.stdout.write(`${port}: ${response.status} ${await response.text()}\n`);
  process.exit(response.ok ? 0 : 1);
}
process.stdout.write(`nothing answered /readyz on ${ports.join(' or ')}\n`);
process.exit(1);
