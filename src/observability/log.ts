// Structured JSON logs on stderr, one object a line, so that a log collector can index them.
export function log(message: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', message, ...fields })}\n`);
}
