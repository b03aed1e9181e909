// A check the compiler runs, kept out of index.ts so that no file imports itself: every workflow
// type of the contract (src/contract/names.ts) is exported by index.ts, which the worker registers
// by export name. Nothing imports this file; tsc reads it with the rest of src/.
import type { WorkflowType } from '../contract/names.js';
import type * as Registered from './index.js';

type Unregistered = Exclude<WorkflowType, keyof typeof Registered>;
const everyTypeRegistered: [Unregistered] extends [never] ? true : Unregistered = true;
void everyTypeRegistered;
