// The registry's MCP server against a client nobody here wrote the stack of: Debian's python3-grpcio with Istio's
// MCP and ServiceEntry messages (test/python/mcp_client.py).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceEntryMcpServer } from '../../../src/registry/mcp/server.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { hasPythonGrpc, pythonScript, runPython, waitFor } from '../../support/python.ts';
import { endpoint, registryEntry } from './entries.ts';
import { clientFiles, ISTIOD, meshTls } from './tls.ts';

interface PyEntry {
  name: string;
  version: string;
  labels: Record<string, string>;
  hosts: string[];
  addresses: string[];
  ports: { number: number; name: string; protocol: string }[];
  location: string;
  resolution: string;
  endpoints: {
    address: string;
    ports: Record<string, number>;
    labels: Record<string, string>;
    locality: string;
    weight: number;
    serviceAccount: string;
  }[];
}
interface PyLine {
  version: string;
  nonce: string;
  typeUrl: string;
  entries: PyEntry[];
}

const SCRIPT = pythonScript('mcp_client.py');

describe(
  'ServiceEntryMcpServer with a python3-grpcio MCP client',
  { skip: hasPythonGrpc ? false : 'python3-grpcio not installed (.ci/run installs it)' },
  () => {
    let server: ServiceEntryMcpServer;
    let port: number;
    // Over mTLS with istiod's identity, as the server runs by default.
    const files = clientFiles(ISTIOD);

    before(async () => {
      server = new ServiceEntryMcpServer({
        host: '127.0.0.1',
        port: 0,
        logger: silentLogger,
        tls: meshTls(),
      });
      server.update([
        registryEntry('org.apache.dubbo.samples.DemoService', [
          endpoint('10.1.0.1', '1.0.0', { locality: 'region1/zone1', serviceAccount: 'demo', weight: 2 }),
        ]),
      ]);
      port = await server.start();
    });

    after(async () => {
      await server.stop();
      files.remove();
    });

    for (const typeUrl of [
      'networking.istio.io/v1/ServiceEntry',
      'networking.istio.io/v1alpha3/ServiceEntry',
    ]) {
      it(`subscribes to ${typeUrl}, decodes the ServiceEntries with their endpoints, ACKs, receives an update`, async () => {
        const acks = server.counters.acks;
        const res = await runPython<PyLine>(
          SCRIPT,
          ['subscribe', String(port), typeUrl, '2', files.ca, files.cert, files.key],
          (line) => {
            if (line.entries.length === 1)
              void waitFor(() => server.counters.acks > acks).then(() =>
                server.update([
                  registryEntry('org.apache.dubbo.samples.DemoService', [
                    endpoint('10.1.0.1'),
                    endpoint('10.1.0.2', '2.0.0'),
                  ]),
                  registryEntry('org.apache.dubbo.samples.GreetingService', [endpoint('10.2.0.1')], 'shop'),
                ]),
              );
          },
        );
        assert.equal(res.code, 0, res.stderr);
        const [first, second] = res.lines;
        assert.equal(first?.typeUrl, typeUrl);
        assert.deepEqual(first?.entries, [
          {
            name: 'dubbo/zk-org-apache-dubbo-samples-demoservice',
            version: first?.entries[0]?.version,
            labels: { manager: 'Aeraki', registry: 'zk' },
            hosts: ['org.apache.dubbo.samples.demoservice'],
            addresses: ['240.240.0.7'],
            ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
            location: 'MESH_INTERNAL',
            resolution: 'STATIC',
            endpoints: [
              {
                address: '10.1.0.1',
                ports: { 'tcp-metaprotocol-dubbo': 20880 },
                labels: { application: 'demo', version: '1.0.0' },
                locality: 'region1/zone1',
                weight: 2,
                serviceAccount: 'demo',
              },
            ],
          },
        ]);
        assert.notEqual(second?.version, first?.version);
        assert.deepEqual(
          second?.entries.map((e) => [e.name, e.endpoints.map((p) => `${p.address}:${p.labels['version']}`)]),
          [
            ['dubbo/zk-org-apache-dubbo-samples-demoservice', ['10.1.0.1:1.0.0', '10.1.0.2:2.0.0']],
            ['shop/zk-org-apache-dubbo-samples-greetingservice', ['10.2.0.1:1.0.0']],
          ],
        );
        assert.equal(server.counters.nacks, 0);
        // Back to the first set for the next case.
        server.update([
          registryEntry('org.apache.dubbo.samples.DemoService', [
            endpoint('10.1.0.1', '1.0.0', { locality: 'region1/zone1', serviceAccount: 'demo', weight: 2 }),
          ]),
        ]);
      });
    }
  },
);
