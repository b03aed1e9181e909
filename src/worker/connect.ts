// The Temporal connection, from the standard TEMPORAL_* environment variables and the client
// configuration profile (@temporalio/envconfig), as every Temporal tool reads them.
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection } from '@temporalio/worker';
import { Client, Connection, type ClientPlugin } from '@temporalio/client';
import { dataConverterFromEnv } from '../codec/index.js';

export interface TemporalTarget {
  address: string;
  namespace: string;
}

export function temporalTarget(): TemporalTarget & { options: ReturnType<typeof loadClientConnectConfig> } {
  const options = loadClientConnectConfig();
  return {
    address: options.connectionOptions.address ?? 'localhost:7233',
    namespace: options.namespace ?? 'default',
    options,
  };
}

export async function connectWorker(): Promise<{ connection: NativeConnection; namespace: string }> {
  const target = temporalTarget();
  const connection = await NativeConnection.connect(target.options.connectionOptions);
  return { connection, namespace: target.namespace };
}

/** A client with the codec when DISPATCH_CODEC_KEYS configures one (the worker must have the same keys). */
export async function connectClient(options: { plugins?: ClientPlugin[] } = {}): Promise<Client> {
  const target = temporalTarget();
  const dataConverter = dataConverterFromEnv();
  // The client and the native connection take the same address and TLS settings.
  const { address, tls, apiKey, metadata } = target.options.connectionOptions;
  const connection = await Connection.connect({ address, tls, apiKey, metadata });
  return new Client({
    connection,
    namespace: target.namespace,
    ...(dataConverter ? { dataConverter } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
}
