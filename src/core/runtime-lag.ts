// Trainer's TrainJob webhook looks the runtime up in its informer cache, which lags the API server:
// a TrainJob created right after its runtime copy (step 6 after step 5) can be denied with "not
// found: specified trainingRuntime must be created before the TrainJob is created" although the
// copy exists, and is admitted a moment later. Seen under load (50 Starts at once on two cores).
// Such a denial of the TrainJob on this Start's own copy is worth a few more tries; any other
// refusal is final.

/** The reason Trainer v2.3.0's TrainJob validator gives when the runtime is not in its cache. */
export const RUNTIME_NOT_YET_SEEN = 'specified trainingRuntime must be created before the TrainJob is created';

/** How many times step 6 creates again after such a denial, and how long it waits before each. */
export const RUNTIME_LAG_TRIES = 10;
export const RUNTIME_LAG_PAUSE_MS = 300;

/** Whether a definite refusal of the TrainJob create is Trainer not having seen `copyName` yet. */
export function isRuntimeCacheLag(answer: { status: number; message: string }, copyName: string): boolean {
  return (
    answer.status === 403 &&
    answer.message.includes(RUNTIME_NOT_YET_SEEN) &&
    answer.message.includes(`"${copyName}" not found`)
  );
}
