// Stand-in for caddy-docker-proxy (which cannot be pulled here) in the compose tests: like it, it
// reads the `caddy` and `caddy.reverse_proxy: "{{upstreams PORT}}"` labels of the containers on the
// Docker socket, and serves that site over HTTPS on 443 (a certificate made by the test, in
// /certs), proxying to the labelled container's address on the ingress network with
// X-Forwarded-For/-Proto/-Host. No ACME, no Caddyfile: only what the example's labels ask for.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:https';

const network = process.env.CADDY_INGRESS_NETWORKS ?? '';

function dockerGet(path) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: '/var/run/docker.sock', path }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The labelled site's upstream, looked up per request (the container's address changes on restart). */
async function upstream(host) {
  const filters = encodeURIComponent(JSON.stringify({ label: ['caddy'] }));
  const containers = await dockerGet(`/containers/json?filters=${filters}`);
  for (const container of containers) {
    if (container.Labels.caddy !== host) continue;
    const port = /\{\{\s*upstreams\s+(\d+)\s*\}\}/.exec(container.Labels['caddy.reverse_proxy'] ?? '')?.[1];
    const address = container.NetworkSettings.Networks[network]?.IPAddress;
    if (port && address) return { address, port: Number(port) };
  }
  return undefined;
}

const server = createServer(
  { cert: readFileSync('/certs/cert.pem'), key: readFileSync('/certs/key.pem') },
  async (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const target = await upstream(host).catch(() => undefined);
    if (!target) {
      res.writeHead(502).end(`no upstream for ${host}\n`);
      return;
    }
    const headers = {
      ...req.headers,
      'x-forwarded-for': req.socket.remoteAddress ?? '',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': req.headers.host ?? '',
    };
    const forward = httpRequest(
      { host: target.address, port: target.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end('upstream failed\n'));
    req.pipe(forward);
  },
);
server.listen(443, '0.0.0.0');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
