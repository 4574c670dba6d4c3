// Child process: the seller's webhook receiver of the settle → received scenario. Records, for
// every POST, when it arrived and the event it carries (id, type, intent, created_at); answers
// 200 at once over keep-alive. {type: 'take'} hands over (and forgets) what arrived so far.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  id: string;
  type: string;
  intentId: string | null;
  /** The event's created_at (the settling transaction's clock), ms since the epoch. */
  createdAt: number;
  /** When the request's body had arrived here, ms since the epoch. */
  at: number;
}

let arrivals: Arrival[] = [];

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: string;
        type: string;
        created_at: string;
        data?: { intent_id?: string };
      };
      arrivals.push({
        id: event.id,
        type: event.type,
        intentId: event.data?.intent_id ?? null,
        createdAt: Date.parse(event.created_at),
        at,
      });
    } catch {
      // not an event: counted nowhere
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 10_000;

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});

process.on('message', (msg: { type: string }) => {
  if (msg.type === 'take') {
    const taken = arrivals;
    arrivals = [];
    process.send?.({ type: 'arrivals', arrivals: taken });
  }
});
process.on('disconnect', () => process.exit(0));
