// The options of `dispatch-kubeflow codec-server`, each also read from a DISPATCH_CODEC_* variable.
// Apart from command.ts so that the CLI declares them without loading the codec server.
import { Option, type Command } from 'commander';
import type { CallerCheckOptions } from './caller-check.js';

export interface CodecServerCommandOptions extends CallerCheckOptions {
  listen: string;
  uiOrigin: string[];
  tlsCert?: string;
  tlsKey?: string;
}

/** The options of `codec-server`, added to its command. */
export function addCodecServerOptions(command: Command): Command {
  const options = [
    new Option('--listen <address>', 'bind address').env('DISPATCH_CODEC_LISTEN').default('127.0.0.1:8888'),
    new Option('--ui-origin <origin...>', 'browser origin of the Temporal UI allowed to call it')
      .env('DISPATCH_CODEC_UI_ORIGIN')
      .default(['http://localhost:8233', 'http://127.0.0.1:8233']),
    new Option('--jwt-issuer <issuer>', "callers' JWTs: the issuer (iss) they must carry").env(
      'DISPATCH_CODEC_JWT_ISSUER',
    ),
    new Option('--jwt-audience <audience...>', "callers' JWTs: an audience (aud) they must carry").env(
      'DISPATCH_CODEC_JWT_AUDIENCE',
    ),
    new Option(
      '--jwks <url-or-file>',
      "callers' JWTs: the keys (JWKS) they are signed with; default: the issuer's jwks_uri",
    ).env('DISPATCH_CODEC_JWKS'),
    new Option(
      '--namespace-claim <claim>',
      "callers' JWTs: the claim listing the Temporal namespaces each may decode (an array, or names separated by spaces or commas; * for every one)",
    ).env('DISPATCH_CODEC_NAMESPACE_CLAIM'),
    new Option(
      '--token-file <file>',
      'static bearer tokens callers may present, one a line, each optionally followed by the namespaces it may decode',
    ).env('DISPATCH_CODEC_TOKEN_FILE'),
    new Option(
      '--insecure-no-auth',
      'serve plaintext to anyone who can reach it (only where nobody else can)',
    ).env('DISPATCH_CODEC_INSECURE_NO_AUTH'),
    new Option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain)').env(
      'DISPATCH_CODEC_TLS_CERT',
    ),
    new Option('--tls-key <file>', "the certificate's PEM private key").env('DISPATCH_CODEC_TLS_KEY'),
  ];
  for (const option of options) command.addOption(option);
  return command;
}
