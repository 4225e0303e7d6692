// Requests a client has begun and not finished: the header's blank line is
// not sent yet. nginx 1.22's retiring worker closes only idle keep-alive
// connections, so one holding such a request stays until it is finished (or
// client_header_timeout passes): that keeps the old workers of a reload
// alive next to the new ones, the way a slow client or a long download would.
import { connect, type Socket } from 'node:net';

export interface HeldRequests {
  /** Sends the rest of each request and waits for every answer's status line; then closes them. */
  finish(timeoutMs: number): Promise<void>;
}

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function answered(socket: Socket, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a held request got no answer in ${timeoutMs} ms`)), timeoutMs);
    socket.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Opens `count` connections to `port`, each with a GET for `host` begun but not finished. */
export async function holdRequests(port: number, host: string, count: number): Promise<HeldRequests> {
  const sockets = await Promise.all(Array.from({ length: count }, () => opened(port)));
  for (const socket of sockets) socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\n`);
  return {
    async finish(timeoutMs) {
      try {
        await Promise.all(
          sockets.map((socket) => {
            const answer = answered(socket, timeoutMs);
            socket.write('Connection: close\r\n\r\n');
            return answer;
          }),
        );
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    },
  };
}
