import { defineConfig } from 'vitest/config';

// Two projects: `unit` runs in-process against the pure core and fakes; `integration` runs against
// the real servers (Temporal dev server, etcd + kube-apiserver + garbage collector), which its
// globalSetup starts once per run and shares; its tests isolate themselves by namespace and task queue.
export default defineConfig({
  test: {
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { 'src/core/**': { lines: 95 } },
    },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: ['test/integration/multikueue/**'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          // Two cores: the servers need one; run test files one or two at a time.
          maxWorkers: 2,
          // Vitest runs projects with different maxWorkers in separate groups; this one after unit.
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          // The two-cluster suite (npm run test:multikueue, docs/multikueue.md): each file starts a
          // manager and a worker cluster of its own, a dozen servers, beside the run's shared stack.
          // One file at a time, after the integration group: started beside the crash tests of that
          // group, the clusters' start-up took the 2-core machine from tests that wait on timing.
          name: 'multikueue',
          include: ['test/integration/multikueue/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      // `reliability` (npm run test:reliability, docs/reliability.md): the whole reliability suite,
      // crashes, outages, load and bad input, which takes tens of minutes; defined only when asked
      // for, so that npm test leaves it out. Its quick part (test/integration/reliability,
      // test/unit/reliability) also runs in the two projects above.
      ...(process.env.DISPATCH_KUBEFLOW_RELIABILITY
        ? [
            {
              test: {
                name: 'reliability',
                include: [
                  'test/reliability/**/*.test.ts',
                  'test/integration/reliability/**/*.test.ts',
                  'test/unit/reliability/**/*.test.ts',
                ],
                globalSetup: [
                  'test/integration/global-setup.ts',
                  'test/reliability/support/leak-audit.setup.ts',
                ],
                testTimeout: 900_000,
                hookTimeout: 600_000,
                // One file at a time: kill -9, outages and load must not overlap, and the figures
                // they report must not be another file's.
                maxWorkers: 1,
                sequence: { groupOrder: 3 },
              },
            },
          ]
        : []),
    ],
  },
});
