// What validation hands to the later steps: the parsed request with its two required extensions
// already extracted, so that no later step re-reads the extension map.
import type { StartRequest } from '../../model/request.js';
import type { RuntimeName } from '../objects/runtime-name.js';

export interface ValidRequest {
  request: StartRequest;
  /** dispatch/Image ref. */
  image: string;
  /** kubeflow/RuntimeRef. */
  runtime: RuntimeName;
}
