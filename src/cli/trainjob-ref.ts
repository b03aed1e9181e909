// The TrainJob a CLI operation acts on (docs/contract.md §9): `--name` and `--uid` (the namespace
// the configuration's unless `--namespace` says), or `--ref` naming a file (`-` for stdin) that
// holds a TrainJobRef or what the other commands print about one, so that their output pipes in:
// `start --wait` prints a StartResult (namespace, name and uid at the top), an operation's
// TrainJobState, Watch's Outcome and find's Present answer hold it as `ref`, a failure as `error.ref`.
import { text } from 'node:stream/consumers';
import { parseDocument, readDocument } from '../config/load-config.js';
import type { TrainJobRef } from '../model/operations.js';
import { validateTrainJobRef } from '../core/operations/validate-ref.js';

export interface RefOptions {
  ref?: string;
  namespace?: string;
  name?: string;
  uid?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The ref a document holds, validated (ErrInvalid naming every problem). A StartResult's `ref` is
 * the string "<ns>/<name>", so there the three fields are taken from the top; a plain TrainJobRef
 * is validated whole, so a misspelt field is named.
 */
export function refFromDocument(document: unknown): TrainJobRef {
  if (!isRecord(document)) return validateTrainJobRef(document);
  if (isRecord(document.ref)) return validateTrainJobRef(document.ref);
  if (isRecord(document.error) && isRecord(document.error.ref)) return validateTrainJobRef(document.error.ref);
  if (typeof document.ref === 'string') {
    const { namespace, name, uid } = document;
    return validateTrainJobRef({ namespace, name, uid });
  }
  return validateTrainJobRef(document);
}

/** What `--ref -` reads: the process's standard input, whatever it is (a pipe, a socket, a file). */
async function readStdin(): Promise<unknown> {
  return parseDocument(await text(process.stdin), 'stdin');
}

/**
 * The ref the options name. Neither `--ref` nor both `--name` and `--uid` is a usage error (a plain
 * Error: exit 1); a ref that is not valid is ErrInvalid (exit 2), as a start request is.
 */
export async function refFromOptions(opts: RefOptions, configNamespace: string): Promise<TrainJobRef> {
  if (opts.ref !== undefined) return refFromDocument(opts.ref === '-' ? await readStdin() : await readDocument(opts.ref));
  if (opts.name === undefined || opts.uid === undefined) {
    throw new Error('name the TrainJob with --name and --uid (and --namespace), or with --ref <file>');
  }
  return validateTrainJobRef({ namespace: opts.namespace ?? configNamespace, name: opts.name, uid: opts.uid });
}
