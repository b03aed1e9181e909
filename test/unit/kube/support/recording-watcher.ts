// A stand-in for src/kube's Watch that only records: each call's path, query and handlers, and an
// AbortController the code under test aborts to stop it. The tests drive the feed by calling the
// recorded `event` and `end` themselves.
import type { KubeObject } from '../../../../src/model/kube.js';

export interface WatchCall {
  path: string;
  query: Record<string, unknown>;
  event(type: string, object: KubeObject): void;
  end(error: unknown): void;
  stop: AbortController;
}

export function recordingWatcher() {
  const watches: WatchCall[] = [];
  const watcher = {
    async watch(path: string, query: Record<string, unknown>, event: (type: string, object: KubeObject) => void, end: (error: unknown) => void) {
      const stop = new AbortController();
      watches.push({ path, query, event, end, stop });
      return stop;
    },
  };
  return { watcher, watches };
}
