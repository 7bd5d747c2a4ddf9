// Plain node:http / node:https requests to a service child.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export function get(url: string, options: { ca?: Buffer; headers?: Record<string, string> } = {}): Promise<Answer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, { method: 'GET', headers: options.headers ?? {}, ...(options.ca ? { ca: options.ca } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer from ${url}`)));
    req.end();
  });
}

export const portOf = (publicUrl: string) => new URL(publicUrl).port;
