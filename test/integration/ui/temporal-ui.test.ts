// The Temporal Web UI, in headless Chromium, as an operator uses it: a Kueue-mode Start held at
// step 9 (the fake Kueue never makes its Workload) is listed, is found by its DispatchJobId, and
// its page shows the static summary and the current details the workflow sets. Then the Start is
// cancelled and rolls back. Screenshots for the README: see browser.ts for where they go.
import type { WorkflowHandle } from '@temporalio/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainJobName } from '../../../src/core/start/names.js';
import { waitFor } from '../../../dev/harness/process.js';
import { TEMPORAL_NAMESPACE } from '../../../dev/harness/temporal.js';
import { Trainer } from '../../../src/model/constants.js';
import { SearchAttributes } from '../../../src/contract/names.js';
import { DispatchPhase, DispatchStep } from '../../../src/contract/search-attributes.js';
import type { StartRequest } from '../../../src/model/request.js';
import type { Progress } from '../../../src/workflows/progress.js';
import { stepLabel, STEPS } from '../../../src/core/start/steps.js';
import { startRequest } from '../../support/requests.js';
import { startDispatch, type DispatchHarness } from '../support/dispatch.js';
import { freshNamespace, type TestNamespace } from '../support/kube.js';
import { runtimeFixtures } from '../support/runtimes.js';
import { refOf, runFor } from '../operations/support.js';
import { openBrowser, screenshotPath, type Browser } from './browser.js';
import { startTemporalWithUi, type TemporalWithUi } from './temporal-with-ui.js';

/** Long enough that the Start is still waiting when the test cancels it. */
const KUEUE_CONFIG = {
  mode: 'kueue',
  kueue: { queue: 'user-queue', admissionCheck: 'dispatch' },
  timeouts: { workload: '120s', call: '5s' },
} as const;

/** The columns an operator adds to the list to see Starts by job and step. */
const ADDED_COLUMNS = [SearchAttributes.jobId, SearchAttributes.step];
/** Removed so that the added ones fit the screenshot (a Start's workflow id already names its type). */
const REMOVED_COLUMNS = ['Run ID', 'Type', 'End'];

interface HeldStart {
  request: StartRequest;
  name: string;
  handle: WorkflowHandle;
}

const held = (h: DispatchHarness, request: StartRequest) =>
  h.client
    .submit(request)
    .then((handle): HeldStart => ({ request, name: trainJobName(request.job, request.submission), handle }));

/** Waits until the Start reports step 9 through its `progress` query. */
const atStep9 = (start: HeldStart) =>
  waitFor(async () => ((await start.handle.query<Progress>('progress')).step === 9 ? true : undefined), {
    what: `Start ${start.handle.workflowId} to reach step 9`,
    timeoutMs: 20_000,
    intervalMs: 200,
  });

/** Reloads `page` until `text` shows (the list is read from visibility, which lags a little). */
async function reloadUntilVisible(page: Page, text: string, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () => {
      await page.reload();
      await page.getByText(text, { exact: true }).first().waitFor({ timeout: 2_000 });
      return true;
    },
    { what: `"${text}" in the Temporal UI at ${page.url()}`, timeoutMs },
  );
}

/** The text of the page and of every frame in it (the UI renders Markdown in frames of its own). */
async function shownText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page.frames().map((frame) =>
      frame
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return texts.join('\n');
}

describe('the Temporal UI shows a Start in flight (Kueue mode, held at step 9)', () => {
  let temporal: TemporalWithUi;
  let ns: TestNamespace;
  let h: DispatchHarness;
  let browser: Browser;
  let page: Page;
  /** The Start the operator looks for, and another one it must not be confused with. */
  let start: HeldStart;
  let other: HeldStart;
  let workflows: string;

  beforeAll(async () => {
    const t0 = Date.now();
    // One at a time, so that whatever started is in a variable afterAll stops.
    temporal = await startTemporalWithUi();
    ns = await freshNamespace('ui');
    h = await startDispatch({ namespace: ns.name, config: KUEUE_CONFIG, temporalAddress: temporal.address });
    // The namespace has no LocalQueue: the real Kueue's Workloads never list the check, so both
    // Starts stay at step 9 for the whole of timeouts.workload.
    [start, other] = await Promise.all([held(h, startRequest()), held(h, startRequest())]);
    browser = await openBrowser();
    await Promise.all([atStep9(start), atStep9(other)]);
    page = browser.page;
    workflows = `${temporal.uiUrl}/namespaces/${TEMPORAL_NAMESPACE}/workflows`;
    console.log(
      `[ui] Temporal with UI, worker, two Starts at step 9 and Chromium in ${Date.now() - t0} ms; UI ${temporal.uiUrl}`,
    );
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await temporal?.stop();
    await ns?.dispose();
  });

  it('the workflow list shows both Starts; with the DispatchJobId and DispatchStep columns added, each reads step 9', async () => {
    await page.goto(workflows);
    await reloadUntilVisible(page, start.handle.workflowId);
    await expect(page.getByText(other.handle.workflowId, { exact: true }).count()).resolves.toBe(1);

    // The operator's table settings: the search attributes as columns, two of the defaults gone.
    await page.getByTestId('workflows-summary-table-configuration-button').click();
    for (const column of ADDED_COLUMNS) await page.getByLabel(`Add ${column} column`).click();
    for (const column of REMOVED_COLUMNS) await page.getByLabel(`Remove ${column} column`).click();
    await page.getByTestId('drawer-close-button').click();
    await page.getByLabel('Collapse saved views').click();

    // DispatchStep is upserted when the step is entered; visibility may lag the query a little.
    await reloadUntilVisible(page, start.request.job);
    const rows = page.locator('tbody tr');
    for (const s of [start, other]) {
      const row = rows.filter({ hasText: s.handle.workflowId });
      await expect(row.count()).resolves.toBe(1);
      const text = await row.innerText();
      expect(text).toContain(s.request.job);
      expect(text).toContain(stepLabel(9));
    }
  });

  it('filtering by DispatchJobId="<job>" (the query in the URL) lists exactly that Start', async () => {
    const query = `${SearchAttributes.jobId}="${start.request.job}"`;
    await page.goto(`${workflows}?query=${encodeURIComponent(query)}`);
    await page.getByText(start.handle.workflowId, { exact: true }).waitFor({ timeout: 15_000 });
    const rows = page.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(1);
    expect(await rows.innerText()).toContain(stepLabel(9));
    await expect(page.getByText(other.handle.workflowId, { exact: true }).count()).resolves.toBe(0);
    // The filter is shown as the operator would have built it with "Add Filter".
    await expect(page.getByText(start.request.job).count()).resolves.toBeGreaterThanOrEqual(2);
    // Down to the pager under the one row: below it the page is empty.
    const table = (await page.locator('table').first().boundingBox())!;
    const width = page.viewportSize()!.width;
    await page.screenshot({
      path: screenshotPath('ui-workflows.png'),
      clip: { x: 0, y: 0, width, height: table.y + table.height + 70 },
    });
  });

  it("the Start's page shows its static summary and its current details: step 9, wait for Workload, and the TrainJob it waits on", async () => {
    await page.getByRole('link', { name: start.handle.workflowId, exact: true }).click();
    await page.getByText('User Metadata', { exact: true }).click();
    await page.getByText('Current Details', { exact: true }).waitFor({ timeout: 15_000 });

    const summary = await (await start.handle.describe()).staticSummary();
    expect(summary).toContain(`TrainJob ${ns.name}/${start.name}`);
    // What the workflow set, as the UI fetches it (the built-in metadata query). The UI renders
    // it as Markdown, in a frame of its own: a line each (paragraphs or hard breaks), the title in bold.
    const { currentDetails } = await start.handle.query<{ currentDetails: string }>(
      '__temporal_workflow_metadata',
    );
    const lines = currentDetails.split(/ *\n+/).map((line) => line.replaceAll('**', '').trim());
    // The first line says what the static summary says, so a Start begun without one (the temporal
    // CLI, a Go client) still says what it is.
    expect(lines[0]).toBe(summary);
    expect(lines).toContain(`Step: 9 of 9, ${STEPS[9].label}`);
    expect(lines).toContain(`Waiting for: the Workload of TrainJob ${ns.name}/${start.name}`);
    await waitFor(
      async () => {
        const shown = await shownText(page);
        const missing = [summary!, ...lines].filter((line) => !shown.includes(line));
        if (missing.length > 0) throw new Error(`not shown: ${missing.join(' | ')}`);
        return true;
      },
      { what: `the summary and the current details on ${page.url()}`, timeoutMs: 15_000, intervalMs: 250 },
    );

    await page.screenshot({ path: screenshotPath('ui-start-detail.png') });
  });

  it('cancelled, each Start rolls back: it ends Canceled and its TrainJob and runtime copy are gone', async () => {
    await Promise.all([start, other].map((s) => s.handle.cancel()));
    for (const s of [start, other]) {
      await expect(s.handle.result()).rejects.toThrow();
      const described = await s.handle.describe();
      expect(described.status.name).toBe('CANCELLED');
      // DispatchStep names the step the Start was cancelled at.
      expect(described.typedSearchAttributes.get(DispatchStep)).toBe(`cancelled at step ${stepLabel(9)}`);
    }
    const exists = async (plural: string, name: string) =>
      h.kube.custom
        .getNamespacedCustomObject({
          group: Trainer.group,
          version: Trainer.version,
          namespace: ns.name,
          plural,
          name,
        })
        .then(
          () => true,
          (error: { code?: number }) => (error.code === 404 ? false : Promise.reject(error)),
        );
    await waitFor(
      async () => {
        const left = await Promise.all(
          [start, other].flatMap((s) => [
            exists(Trainer.trainJobPlural, s.name),
            exists(Trainer.trainingRuntimePlural, s.name),
          ]),
        );
        return left.includes(true) ? undefined : true;
      },
      {
        what: 'the TrainJobs and runtime copies of both Starts to be gone',
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );
  });

  it("a Watch's page shows its summary, the phase and what it waits for; DispatchPhase reads Running", async () => {
    // A plain-mode worker on the same Temporal, and a job KWOK keeps running for two minutes.
    const plainNs = await freshNamespace('ui-watch');
    const plain = await startDispatch({ namespace: plainNs.name, config: {}, temporalAddress: temporal.address });
    try {
      const runtime = await runtimeFixtures(plain.kube).namespaced(plainNs.name, 'run-2m', runFor('120s'));
      const ref = refOf(await plain.client.startTrainJob(startRequest({ runtime })));
      await plain.client.open(ref);
      const watch = await plain.client.submitOperation('watch', ref);
      await waitFor(async () => ((await watch.describe()).typedSearchAttributes.get(DispatchPhase) === 'Running' ? true : undefined), {
        what: 'the Watch to show DispatchPhase Running',
        timeoutMs: 30_000,
        intervalMs: 250,
      });
      const summary = await (await watch.describe()).staticSummary();
      expect(summary).toBe(`Watch TrainJob ${ref.namespace}/${ref.name} (uid ${ref.uid})`);
      const { currentDetails } = await watch.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      const lines = currentDetails.split(/ *\n+/).map((line) => line.replaceAll('**', '').trim());
      expect(lines[0]).toBe(summary);
      expect(lines).toContain(`Waiting for: TrainJob ${ref.namespace}/${ref.name} to complete, fail or go (woken by its changes, read again every 15m at least)`);
      expect(lines.some((line) => line.startsWith('Phase: Running'))).toBe(true);

      await page.goto(`${workflows}/${encodeURIComponent(watch.workflowId)}`);
      await page.getByText('User Metadata', { exact: true }).click();
      await page.getByText('Current Details', { exact: true }).waitFor({ timeout: 15_000 });
      await waitFor(
        async () => {
          const shown = await shownText(page);
          const missing = [summary!, ...lines.filter((l) => l !== '\u00a0' && l !== '')].filter((line) => !shown.includes(line));
          if (missing.length > 0) throw new Error(`not shown: ${missing.join(' | ')}`);
          return true;
        },
        { what: `the Watch's summary and current details on ${page.url()}`, timeoutMs: 15_000, intervalMs: 250 },
      );
      await page.screenshot({ path: screenshotPath('ui-watch-detail.png') });
      expect(await plain.client.stop(ref)).toMatchObject({ phase: 'Absent' });
      expect(await watch.result()).toMatchObject({ ref, phase: 'Absent' });
    } finally {
      await plain.close();
      await plainNs.dispose();
    }
  });
});
