// One health check for every local server's endpoint: plain HTTP, or HTTPS with a self-signed
// serving certificate (a health endpoint's answer is all that is read, so it is not verified).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** True when `url` answers 200 within `timeoutMs`, undefined for any other status (for waitFor). */
export function answers200(url: string, timeoutMs = 2_000): Promise<true | undefined> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? true : undefined);
    });
    req.once('timeout', () => req.destroy(new Error(`${url}: no answer in ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end();
  });
}
