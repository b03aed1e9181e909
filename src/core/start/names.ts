// The names and identity strings Start writes (docs/contract.md §3). The attempt token is hashed
// with a pure-JS SHA-256 because this module runs in the Temporal workflow sandbox, where
// node:crypto is not available.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { Dispatch } from '../../model/constants.js';

const TOKEN_HEX_DIGITS = 12;

/** `dj-<lowercase JobID>-s<N>`: the TrainJob's and the runtime copy's name, at most 37 characters. */
export function trainJobName(jobId: string, submission: number): string {
  return `${Dispatch.namePrefix}${jobId.toLowerCase()}-s${submission}`;
}

/**
 * `<attempt>-<first 12 hex digits of sha256("<namespace>/<name>/<attempt>")>`: a retried Start of
 * the same attempt recognises its own objects by it, and another attempt never does.
 */
export function attemptToken(namespace: string, name: string, attempt: number): string {
  const digest = bytesToHex(sha256(utf8ToBytes(`${namespace}/${name}/${attempt}`)));
  return `${attempt}-${digest.slice(0, TOKEN_HEX_DIGITS)}`;
}

/** G × 10^6 + N (DISPATCH_K8S_EPOCH_PREFIX); at most 18,000,000,999,999, well inside 2^53. */
export function epochPrefix(generation: number, submission: number): number {
  return generation * 1_000_000 + submission;
}

/** The comment annotation: `dispatch job=<JobID> g=<G> s=<N> a=<attempt>`. */
export function comment(jobId: string, generation: number, submission: number, attempt: number): string {
  return `dispatch job=${jobId} g=${generation} s=${submission} a=${attempt}`;
}
