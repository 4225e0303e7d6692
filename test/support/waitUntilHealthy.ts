import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GuardedProcess } from './childProcess.js';

const pollIntervalMs = 100;
const requestTimeoutMs = 2_000;

/**
 * Polls `url` until it answers 200, failing early if `owner` exits and after
 * `timeoutMs` otherwise; both errors carry the tail of the owner's log.
 * `ca` is the PEM CA that signed an https server's certificate.
 */
export async function waitUntilHealthy(url: string, owner: GuardedProcess, timeoutMs: number, ca?: Buffer): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastAnswer = 'no answer yet';
  while (Date.now() < deadline) {
    if (owner.hasExited()) {
      const exit = await owner.exited;
      throw new Error(
        `${owner.name} exited (code ${exit.code}, signal ${exit.signal}) before ${url} was healthy; log ${owner.logPath}:\n${owner.logTail()}`,
      );
    }
    try {
      const { status, body } = await fetchOnce(url, ca);
      if (status === 200) return;
      lastAnswer = `HTTP ${status}: ${body.slice(0, 2_000)}`;
    } catch (error) {
      lastAnswer = (error as Error).message;
    }
    await sleep(pollIntervalMs);
  }
  throw new Error(
    `${owner.name} was not healthy at ${url} within ${timeoutMs} ms (last answer: ${lastAnswer}); log ${owner.logPath}:\n${owner.logTail()}`,
  );
}

function fetchOnce(url: string, ca: Buffer | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    };
    const request = url.startsWith('https:')
      ? httpsGet(url, { ca, timeout: requestTimeoutMs, agent: false }, onResponse)
      : httpGet(url, { timeout: requestTimeoutMs, agent: false }, onResponse);
    request.on('timeout', () => request.destroy(new Error(`no answer within ${requestTimeoutMs} ms`)));
    request.on('error', reject);
  });
}
