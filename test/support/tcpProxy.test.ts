import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTcpProxy, type TcpProxy } from './tcpProxy.js';

const quietPeriodMs = 200;

/** Connects and resolves once connected; rejects on a connection error. */
function connectTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Resolves with the next `length` characters the socket receives, or with
 * undefined if they do not arrive within `ms`. The socket is paused between
 * reads so nothing arriving in between is lost.
 */
function readWithin(socket: Socket, length: number, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let received = '';
    const onData = (chunk: Buffer): void => {
      received += chunk.toString('utf8');
      if (received.length >= length) finish(received);
    };
    const timer = setTimeout(() => finish(undefined), ms);
    const finish = (result: string | undefined): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
      if (result === undefined && received !== '') socket.unshift(Buffer.from(received));
      resolve(result);
    };
    socket.on('data', onData);
    socket.resume();
  });
}

function echoWithin(socket: Socket, text: string, ms: number): Promise<string | undefined> {
  socket.write(text);
  return readWithin(socket, text.length, ms);
}

/** Resolves when the socket is closed by the other side (reset or end), or false after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('tcp proxy', () => {
  let echoServer: Server;
  let proxy: TcpProxy;
  const clients: Socket[] = [];

  before(async () => {
    echoServer = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => echoServer.listen(0, '127.0.0.1', resolve));
    const address = echoServer.address();
    assert.ok(address !== null && typeof address === 'object');
    proxy = await startTcpProxy('127.0.0.1', address.port);
  });

  after(async () => {
    for (const client of clients) client.destroy();
    await proxy.close();
    await new Promise<void>((resolve) => echoServer.close(() => resolve()));
  });

  const client = async (): Promise<Socket> => {
    const socket = await connectTo(proxy.port);
    clients.push(socket);
    return socket;
  };

  it('forwards bytes both ways', async () => {
    assert.equal(await echoWithin(await client(), 'hello', 2_000), 'hello');
  });

  it('stalls open and new connections without closing them, until resumed', async () => {
    const open = await client();
    proxy.stall();
    const opened = await client();
    assert.equal(await echoWithin(open, 'ping', quietPeriodMs), undefined);
    assert.equal(await echoWithin(opened, 'ping', quietPeriodMs), undefined);
    assert.equal(open.destroyed, false);

    proxy.resume();
    // The bytes sent while stalled were held back, not lost.
    assert.equal(await readWithin(open, 4, 2_000), 'ping');
    assert.equal(await readWithin(opened, 4, 2_000), 'ping');
  });

  it('cuts open connections and refuses new ones, until resumed', async () => {
    const open = await client();
    proxy.cut();
    assert.equal(await closedWithin(open, 2_000), true);
    const refused = await client().catch(() => undefined);
    if (refused !== undefined) assert.equal(await closedWithin(refused, 2_000), true);

    proxy.resume();
    assert.equal(await echoWithin(await client(), 'back', 2_000), 'back');
  });
});
