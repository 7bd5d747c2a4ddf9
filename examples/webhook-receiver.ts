// A minimal webhook receiver to try deliveries on this machine: HTTPS on 127.0.0.1:9443, checks
// each delivery's signature the way a subscriber should, prints what arrived, answers 200.
//
//   RECEIVER_CERT=receiver-cert.pem RECEIVER_KEY=receiver-key.pem WEBHOOK_SECRET=whsec_… \
//     npx tsx examples/webhook-receiver.ts
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const secret = process.env.WEBHOOK_SECRET ?? '';
const port = Number(process.env.RECEIVER_PORT ?? 9443);

function verified(rawBody: Buffer, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = createServer(
  { cert: readFileSync(process.env.RECEIVER_CERT ?? 'receiver-cert.pem'), key: readFileSync(process.env.RECEIVER_KEY ?? 'receiver-key.pem') },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const ok = verified(body, req.headers['x-exchangerates-signature'] as string | undefined);
      console.log(
        `${String(req.headers['x-exchangerates-event'])} ${String(req.headers['x-exchangerates-delivery'])} signature ${ok ? 'valid' : 'INVALID'}\n${body.toString('utf8')}`,
      );
      res.writeHead(ok ? 200 : 401).end();
    });
  },
);
server.listen(port, '127.0.0.1', () => console.log(`receiving on https://127.0.0.1:${port}/ (any path)`));
