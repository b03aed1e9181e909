// The certificate and key of the HTTPS listeners (the worker's metrics and health, the codec
// server), given as PEM or as files. Files are re-read when they change: a mounted Secret's
// rotation (cert-manager renews well before expiry) swaps them in place, and a restart to pick
// them up would make every replica unready at once.
import { readFileSync, statSync } from 'node:fs';

/** A PEM certificate (chain) and its private key. */
export interface TlsPem {
  cert: string | Buffer;
  key: string | Buffer;
}

/** The files holding them, read at start and again whenever either changes. */
export interface TlsPaths {
  certFile: string;
  keyFile: string;
}

export type TlsFiles = TlsPem | TlsPaths;

/** --tls-cert and --tls-key (or their variables): both, or neither for plain HTTP. */
export function tlsPathsFromFlags(opts: { tlsCert?: string; tlsKey?: string }): TlsPaths | undefined {
  if (opts.tlsCert === undefined && opts.tlsKey === undefined) return undefined;
  if (opts.tlsCert === undefined || opts.tlsKey === undefined)
    throw new Error('--tls-cert and --tls-key go together: give both, or neither for plain HTTP');
  return { certFile: opts.tlsCert, keyFile: opts.tlsKey };
}

/**
 * The pair in the files, and whether they changed since it was last read. A Kubernetes Secret
 * volume replaces both at once (a symbolic link swapped), which stat sees through as a new inode;
 * a file edited in place shows a new modification time or size.
 */
export class CertificateFiles {
  private signature: string;
  private pem: TlsPem;

  constructor(private readonly paths: TlsPaths) {
    this.signature = this.stat();
    this.pem = this.read();
  }

  current(): TlsPem {
    return this.pem;
  }

  /** The pair read again if either file changed since the last read, else undefined. */
  changed(): TlsPem | undefined {
    const signature = this.stat();
    if (signature === this.signature) return undefined;
    this.pem = this.read();
    // Only once read: a file missing for a moment is tried again at the next call.
    this.signature = signature;
    return this.pem;
  }

  private stat(): string {
    return this.each((file) => {
      const { ino, mtimeMs, size } = statSync(file);
      return `${ino}:${mtimeMs}:${size}`;
    }).join('/');
  }

  private read(): TlsPem {
    const [cert, key] = this.each((file) => readFileSync(file));
    return { cert: cert!, key: key! };
  }

  /** `use` of the certificate's file, then the key's; an error names the flag and the file. */
  private each<T>(use: (file: string) => T): T[] {
    const flags: [string, string][] = [
      ['--tls-cert', this.paths.certFile],
      ['--tls-key', this.paths.keyFile],
    ];
    return flags.map(([flag, file]) => {
      try {
        return use(file);
      } catch (error) {
        throw new Error(`${flag} ${file}: ${(error as Error).message}`, { cause: error });
      }
    });
  }
}
