// Refusals Start and Capabilities share, decided from data alone.
import type { Config } from '../../model/config.js';
import { DispatchError } from '../../model/errors.js';
import type { BackendGates } from '../../model/results.js';
import { isRuntimeAllowed } from './runtime-rules.js';
import { runtimeKey, type RuntimeName } from '../objects/runtime-name.js';

/**
 * Step 1: the refusal for the first gate the latest preflight did not prove (docs/contract.md §8);
 * a write or start gate left unknown by a preflight without a definite answer is ErrUnreachable.
 */
export function gateRefusal(gates: BackendGates | undefined): DispatchError | undefined {
  if (!gates) return new DispatchError('ErrUnreachable', ['reach: not proven (no preflight has completed yet)'], 1);
  const why = (gate: string) => {
    const own = gates.reasons.filter((r) => r.startsWith(`${gate}:`));
    return own.length > 0 ? own : [`${gate}: not proven`];
  };
  if (!gates.reach) return new DispatchError('ErrUnreachable', why('reach'), 1);
  // An unanswered access review proves nothing either way: retryable, naming the write gate.
  if (!gates.write && gates.writeUnknown === true) return new DispatchError('ErrUnreachable', why('write'), 1);
  if (!gates.write) return new DispatchError('ErrReadOnly', why('write'), 1);
  // A probe without a definite answer proves nothing either way: retryable, naming the start gate.
  if (!gates.start && gates.startUnknown === true) return new DispatchError('ErrUnreachable', why('start'), 1);
  if (!gates.start) return new DispatchError('ErrUnsupported', why('start'), 1);
  return undefined;
}

/** Step 2: a runtime outside the configured allow-list is refused before it is read. */
export function allowListRefusal(runtime: RuntimeName, config: Config): DispatchError | undefined {
  if (isRuntimeAllowed(runtime, config)) return undefined;
  return new DispatchError(
    'ErrUnsupported',
    [`runtime ${runtimeKey(runtime)} is not in the configured runtimes (${config.runtimes.join(', ')})`],
    2,
  );
}
