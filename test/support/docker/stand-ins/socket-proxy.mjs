// Stand-in for tecnativa/docker-socket-proxy (which cannot be pulled here) in the compose tests:
// TCP 2375 forwarded to the Docker socket, byte for byte. The real proxy also refuses the API
// sections its variables leave off; this one does not, so those variables are not tested.
import { connect, createServer } from 'node:net';

const server = createServer((client) => {
  const socket = connect({ path: '/var/run/docker.sock' });
  client.pipe(socket).pipe(client);
  const close = () => {
    client.destroy();
    socket.destroy();
  };
  client.on('error', close);
  socket.on('error', close);
});
server.listen(2375, '0.0.0.0');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
