import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RunningHttpServer {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish, and gives up on them after the timeout. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Answers a request before express sees it, or returns false to leave it to express: a hot
 * path's requests skip express' middleware chain.
 */
export type PreRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

export async function startHttpServer(
  app: Express,
  port: number,
  host: string,
  preRoute?: PreRoute,
): Promise<RunningHttpServer> {
  const handler = preRoute
    ? (req: IncomingMessage, res: ServerResponse) => {
        if (!preRoute(req, res)) app(req, res);
      }
    : app;
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = createServer(handler);
    listening.once('error', reject);
    listening.listen(port, host, () => {
      listening.off('error', reject);
      resolve(listening);
    });
  });
  // Behind a proxy or load balancer, idle sockets must outlive the proxy's own idle timeout.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;

  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: (timeoutMs) =>
      new Promise<void>((resolve) => {
        // Keep-alive sockets go idle as their in-flight requests finish; close each as it does.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const deadline = setTimeout(() => {
          server.closeAllConnections();
        }, timeoutMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
