// Files the codec server reads again when they change, so that a rotated certificate, token file or
// JWKS takes effect without a restart. A Kubernetes Secret volume rotates by swapping a symlink
// (..data) to a new directory, which fs.watch does not reliably report through the link; a stat per
// use does: it follows the link, and a new file has a new inode, size or change time. A stat is
// cheap, so the files are stat'ed on every use and read again only when their signature changed.
import { readFileSync, statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

/** What says a file changed: inode, size, modification and change times. */
const signatureOf = (s: Stats) => `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;

/**
 * The value parsed from a set of files, read together (a certificate with its key) so that the
 * parser sees them as of one moment. A stat or read that fails, or a parse that throws, rejects:
 * the caller decides whether to refuse (the token file: nothing is decoded against a file it cannot
 * read) or to keep the last good value (the certificate). `onReload` hears of each value read after
 * the first, once.
 */
export class ReloadingFiles<T> {
  private signature: string | undefined;
  private value: T | undefined;
  /** The read under way, shared by the uses that see the same signature while it runs. */
  private reading: { signature: string; done: Promise<T> } | undefined;

  constructor(
    readonly files: readonly string[],
    private readonly parse: (contents: Buffer[]) => T,
    private readonly onReload: (value: T) => void = () => {},
  ) {}

  /** The value as of the files now; reads them only when one changed since the last read. */
  async current(): Promise<T> {
    const signature = (await Promise.all(this.files.map((file) => stat(file)))).map(signatureOf).join('|');
    if (signature === this.signature && this.value !== undefined) return this.value;
    if (this.reading?.signature !== signature) {
      const reading = { signature, done: this.read(signature) };
      this.reading = reading;
      const settled = () => {
        if (this.reading === reading) this.reading = undefined;
      };
      reading.done.then(settled, settled);
    }
    return this.reading.done;
  }

  /**
   * As current(), without waiting: for a TLS server's connection event, which must have its
   * certificate before the handshake begins. One stat a file, and a read only after a change.
   */
  currentSync(): T {
    const signature = this.files.map((file) => signatureOf(statSync(file))).join('|');
    if (signature === this.signature && this.value !== undefined) return this.value;
    return this.accept(
      signature,
      this.files.map((file) => readFileSync(file)),
    );
  }

  private async read(signature: string): Promise<T> {
    return this.accept(signature, await Promise.all(this.files.map((file) => readFile(file))));
  }

  private accept(signature: string, contents: Buffer[]): T {
    const value = this.parse(contents);
    const first = this.signature === undefined;
    this.signature = signature;
    this.value = value;
    if (!first) this.onReload(value);
    return value;
  }
}
