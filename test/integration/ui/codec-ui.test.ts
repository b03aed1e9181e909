// The Temporal Web UI, in headless Chromium, decoding a Start's sealed input through the codec server
// only with the right credentials. The worker runs with the codec (every payload encrypted); the
// codec server serves HTTPS (the UI passes a token to an https endpoint only) and checks JWTs of a
// test issuer. The UI is set up as its codec settings dialog leaves it, in its localStorage: the
// endpoint, "pass access token" and "include cross-origin credentials" on. The token: a UI with OIDC
// login keeps its user's in localStorage (AuthUser), but the dev server's UI has no login and clears
// that at every load, so the test gives the token through the UI's other source of it, a
// `globalThis.AccessToken()` function the UI calls when it is defined (what an embedding page sets),
// defined by an init script before the UI's code runs. From there on the UI's own code calls the
// codec server, with `Authorization: Bearer <token>`, and renders what comes back. What this does not
// exercise: an OIDC login (the token is one the test signs, not one an identity provider issued).
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet } from 'jose';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../dev/harness/process.js';
import { TEMPORAL_NAMESPACE } from '../../../dev/harness/temporal.js';
import { jwtCheck } from '../../../src/codec/caller-check.js';
import { startCodecServer } from '../../../src/codec/codec-server.js';
import { EncryptionCodec } from '../../../src/codec/encryption-codec.js';
import { parseCodecKeys } from '../../../src/codec/keys.js';
import type { ListeningServer } from '../../../src/observability/listen.js';
import { startRequest } from '../../support/requests.js';
import { testCertificate, type TestCertificate } from '../../support/test-certificate.js';
import { TEST_AUDIENCE, tokenIssuer, type TokenIssuer } from '../../support/token-issuer.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';
import { openBrowser, type Browser } from './browser.js';
import { startTemporalWithUi, type TemporalWithUi } from './temporal-with-ui.js';

const codec = new EncryptionCodec(parseCodecKeys(`ui:${randomBytes(32).toString('base64')}`));
const SECRET = `pw-${randomBytes(6).toString('hex')}`;
/** Where the test leaves the user's token for the init script below. */
const TOKEN_KEY = 'dispatch-test-access-token';
/** How the UI shows a payload it could not decode: its metadata, base64 (`binary/encrypted`). */
const SEALED = Buffer.from('binary/encrypted').toString('base64');

describe('the Temporal UI decodes payloads through the codec server only with valid credentials', () => {
  let temporal: TemporalWithUi;
  let ns: TestNamespace;
  let h: DispatchHarness;
  let cert: TestCertificate;
  let issuer: TokenIssuer;
  let codecServer: ListeningServer;
  let browser: Browser;
  let page: Page;
  let workflowUrl: string;
  /** The codec server's log lines. */
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    temporal = await startTemporalWithUi();
    ns = await freshNamespace('ui-codec');
    h = await startDispatch({
      namespace: ns.name,
      config: {},
      temporalAddress: temporal.address,
      dataConverter: { payloadCodecs: [codec] },
    });
    cert = testCertificate();
    issuer = await tokenIssuer('RS256');
    codecServer = await startCodecServer(
      '127.0.0.1:0',
      {
        codecs: [codec],
        origins: [temporal.uiUrl],
        callerCheck: jwtCheck(createLocalJWKSet(issuer.jwks), issuer.issuer, [TEST_AUDIENCE]),
        log: (message, fields) => logged.push({ message, ...fields }),
      },
      { cert: cert.cert, key: cert.key },
    );
    const handle = await h.client.submit(startRequest({ spec: { env: { DB_PASSWORD: SECRET } } }));
    await handle.result();
    workflowUrl = `${temporal.uiUrl}/namespaces/${TEMPORAL_NAMESPACE}/workflows/${encodeURIComponent(handle.workflowId)}`;
    // Chromium trusts the test certificate's key and nothing more (not every certificate error).
    browser = await openBrowser([`--ignore-certificate-errors-spki-list=${cert.spkiSha256}`]);
    page = browser.page;
    // Before the UI's code runs on each load: the user's token, when the test left one, through the
    // hook the UI asks for it (it calls globalThis.AccessToken() when defined).
    await page.context().addInitScript((key: string) => {
      const scope = globalThis as unknown as {
        localStorage: { getItem(key: string): string | null };
        AccessToken?: () => Promise<string>;
      };
      const token = scope.localStorage.getItem(key);
      if (token !== null) scope.AccessToken = async () => token;
    }, TOKEN_KEY);
  });
  afterAll(async () => {
    await browser?.close();
    await codecServer?.close();
    await h?.close();
    await temporal?.stop();
    await ns?.dispose();
    cert?.remove();
  });

  /** Leaves the UI's codec settings and the user's token (if any) in localStorage, then opens the Start. */
  async function openStartAs(user: { accessToken: string } | undefined): Promise<void> {
    await page.goto(`${temporal.uiUrl}/namespaces/${TEMPORAL_NAMESPACE}/workflows`);
    await page.evaluate(
      ({ endpoint, user, TOKEN_KEY }) => {
        // In the page: its localStorage (this project's TypeScript has no DOM types).
        const { localStorage } = globalThis as unknown as {
          localStorage: { clear(): void; setItem(key: string, value: string): void };
        };
        localStorage.clear();
        localStorage.setItem('endpoint', JSON.stringify(endpoint));
        localStorage.setItem('passAccessToken', 'true');
        localStorage.setItem('includeCredentials', 'true');
        if (user) localStorage.setItem(TOKEN_KEY, user.accessToken);
      },
      { endpoint: codecServer.url, user, TOKEN_KEY },
    );
    logged.length = 0;
    await page.goto(workflowUrl);
  }

  /**
   * Waits for the UI to have called /decode, answered `status`, and for the Start's Input panel (the
   * page's text between the Input and Result headings) to show `what`; returns that panel's text.
   */
  async function inputShown(status: number, what: string): Promise<string> {
    await waitFor(
      async () => (logged.some((l) => l.path === '/decode' && l.status === status) ? true : undefined),
      { what: `the UI's call to the codec server, answered ${status}`, timeoutMs: 20_000, intervalMs: 200 },
    );
    let input = '';
    await waitFor(
      async () => {
        const text = await page.locator('body').innerText();
        input = /\nInput\n([\s\S]*?)\nResult\n/.exec(text)?.[1] ?? '';
        return input.includes(what) ? true : undefined;
      },
      {
        what: `${what} in the Input panel on ${page.url()} (last: ${input.slice(0, 200)})`,
        timeoutMs: 20_000,
        intervalMs: 250,
      },
    );
    return input;
  }

  it("with a valid access token: the UI shows the Start's decoded input, secret env included", async () => {
    await openStartAs({ accessToken: await issuer.sign({ sub: 'alice@example.com' }) });
    const input = await inputShown(200, SECRET);
    expect(input).not.toContain(SEALED);
    expect(logged.filter((l) => l.status === 200).every((l) => l.caller === 'alice@example.com')).toBe(true);
    expect(logged.filter((l) => l.message === 'codec server refused')).toEqual([]);
  });

  it.each([
    ['without a token (the UI sends "Bearer undefined")', async () => undefined, 403, /not a valid JWT/],
    [
      'with an expired token',
      async () => ({
        accessToken: await issuer.sign({}, { expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
      }),
      403,
      /expired/,
    ],
    [
      'with a token of another issuer',
      async () => ({
        accessToken: await (await tokenIssuer('RS256', { issuer: 'https://other.example' })).sign(),
      }),
      403,
      /signature does not verify|claim iss/,
    ],
  ])(
    '%s: the codec server refuses (logged) and the UI shows the input still sealed',
    async (_, user, status, reason) => {
      await openStartAs(await user());
      const input = await inputShown(status, SEALED);
      const refusals = logged.filter((l) => l.message === 'codec server refused');
      expect(refusals.length).toBeGreaterThan(0);
      for (const refusal of refusals) {
        expect(refusal).toMatchObject({ status, origin: temporal.uiUrl, remoteAddress: '127.0.0.1' });
        expect(refusal.reason).toMatch(reason);
      }
      expect(logged.filter((l) => l.status === 200)).toEqual([]);
      expect(input).not.toContain(SECRET);
    },
  );
});
