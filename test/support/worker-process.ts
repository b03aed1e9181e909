// Which process a worker identity in a history belongs to: a dispatch worker's identity is
// `dispatch-kubeflow/<namespace>/<pid>@<host>` (src/contract/names.ts, workerIdentity), another
// worker's the SDK's `<pid>@<host>`. Tests that find the worker that ran a task compare this.
export const processOfIdentity = (identity: string | null | undefined): string => (identity ?? '').split('/').at(-1) ?? '';

/** Whether the identity is of the process with this pid. */
export const isIdentityOf = (identity: string | null | undefined, pid: number | undefined): boolean => processOfIdentity(identity).startsWith(`${pid}@`);
