// The launcher's small parts that need no server: parsing the build script's output, picking the
// CA out of the API server's certificate file, the kubeconfig and .dev/env it writes.
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseServerPaths } from '../../../dev/harness/binaries.js';
import { envFile } from '../../../dev/harness/dev-stack.js';
import { kubeconfigYaml } from '../../../dev/harness/kube-access.js';
import { caOfSelfSigned } from '../../../dev/harness/kube-apiserver.js';
import { stackInfo } from '../support/context.js';

describe('launcher parts', () => {
  it('parses "<tool>=<path>" lines and ignores anything else', () => {
    expect(parseServerPaths('etcd=/c/etcd\nbuilding x …\nkube-apiserver=/c/kube-apiserver\nother=/x\n')).toEqual({
      etcd: '/c/etcd',
      kubeApiserver: '/c/kube-apiserver',
    });
  });

  it('takes the last certificate of the chain as the CA', () => {
    const cert = (n: string) => `-----BEGIN CERTIFICATE-----\n${n}\n-----END CERTIFICATE-----\n`;
    expect(caOfSelfSigned(cert('serving') + cert('ca'))).toBe(cert('ca'));
    expect(() => caOfSelfSigned('')).toThrow(/no certificate/);
  });

  it('writes kubeconfigs client-node loads: HTTPS with the CA, plain HTTP allowed for the proxy', () => {
    const https = new KubeConfig();
    https.loadFromString(kubeconfigYaml({ server: 'https://127.0.0.1:1', caPem: 'PEM', token: 't', user: 'u', namespace: 'ns' }));
    expect(https.getCurrentCluster()).toMatchObject({ server: 'https://127.0.0.1:1', caData: Buffer.from('PEM').toString('base64') });
    expect(https.getCurrentUser()?.token).toBe('t');
    expect(https.getContextObject(https.getCurrentContext())?.namespace).toBe('ns');
    const http = parse(kubeconfigYaml({ server: 'http://127.0.0.1:2', token: 't', user: 'u' })) as { clusters: { cluster: object }[] };
    expect(http.clusters[0]?.cluster).toEqual({ server: 'http://127.0.0.1:2', 'insecure-skip-tls-verify': true });
  });

  it('.dev/env exports every variable, shell-quoted', () => {
    const info = { ...stackInfo(), temporal: { ...stackInfo().temporal, uiUrl: "http://x'y" } };
    const env = envFile(info);
    for (const key of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_UI_URL', 'KUBECONFIG', 'K8S_NAMESPACE', 'TEMPORAL_CLI']) {
      expect(env).toMatch(new RegExp(`^export ${key}='`, 'm'));
    }
    expect(env).toContain(`export TEMPORAL_UI_URL='http://x'\\''y'`);
  });
});
