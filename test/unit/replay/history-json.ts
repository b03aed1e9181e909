// Workflow histories as JSON files, in the format Temporal's own tools write and read
// (`temporal workflow show --output json`, the Web UI's download, `Worker.runReplayHistory`):
// protobuf's canonical JSON mapping of temporal.api.history.v1.History.
//
// The SDK has these two functions (historyToJSON / historyFromJSON in
// @temporalio/common/lib/proto-utils), but they throw "type must be a Type" whenever npm gives
// @temporalio/common and @temporalio/proto separate copies of protobufjs (as it does here: other
// dependencies put protobufjs 7 at the top level), because protojson checks `instanceof Type`
// against its own copy. So this uses the protojson of the very copy that built @temporalio/proto's
// types, whatever the install layout. `Worker.runReplayHistories` takes the History objects it
// returns as they are (it converts only JSON it is given, with the failing function).
import { createRequire } from 'node:module';
import type { temporal } from '@temporalio/proto';

export type History = temporal.api.history.v1.IHistory;

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): unknown;
}

const require = createRequire(import.meta.url);
const protoPath = require.resolve('@temporalio/proto');
const proto = require(protoPath) as {
  temporal: { api: { history: { v1: { History: { fromObject(h: History): unknown } } } } };
};
const { patchProtobufRoot } = require('@temporalio/proto/lib/patch-protobuf-root') as {
  patchProtobufRoot(root: unknown): { lookupType(name: string): unknown };
};
const protojson = createRequire(protoPath)('protobufjs/ext/protojson') as ProtoJson;
const historyType = patchProtobufRoot(proto).lookupType('temporal.api.history.v1.History');

/** A history (as `WorkflowHandle.fetchHistory()` returns it) as canonical JSON text. */
export function historyToJson(history: History): string {
  const message = proto.temporal.api.history.v1.History.fromObject(history);
  return JSON.stringify(protojson.toJson(historyType, message), null, 1);
}

/** A history read back from canonical JSON (unknown fields, from a newer server, are ignored). */
export function historyFromJson(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History | null;
  if (!history?.events?.length) throw new TypeError('not a workflow history: no events');
  return history;
}
