// The MCP client's receive path without the stream: encoded DiscoveryResponses through a real ReceiveWorker, what it
// read applied to McpState and a store, as McpClient does (a result of an older stream generation dropped).
import type { AnyMessage } from '../../src/controller/mcp/decode.ts';
import type { McpProtos } from '../../src/controller/mcp/protos.ts';
import type { FromWorker } from '../../src/controller/mcp/receive-protocol.ts';
import { frozen, ReceiveWorker, type SpawnReceiveWorker } from '../../src/controller/mcp/receiver.ts';
import { McpState, type McpStoreSink, type ResponseOutcome } from '../../src/controller/mcp/state.ts';
import type { McpTypeUrl } from '../../src/controller/mcp/type-urls.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';

export class WorkerPath {
  readonly state: McpState;
  readonly worker: ReceiveWorker;
  /** What the worker said, in order, with the outcome of each read applied. */
  readonly said: { m: FromWorker; outcome?: ResponseOutcome }[] = [];
  readonly failures: Error[] = [];
  gen = 1;
  private waiters: { n: number; resolve: () => void }[] = [];
  private nonce = 0;

  constructor(
    private readonly protos: McpProtos,
    sink: McpStoreSink,
    private readonly urls: readonly McpTypeUrl[],
    revision = '',
    spawn?: SpawnReceiveWorker,
  ) {
    this.state = new McpState(protos, sink, parseConfigObject, revision, urls);
    this.worker = new ReceiveWorker(
      { revision, urls, passUrls: [] },
      { message: (m) => this.onMessage(m), failed: (err) => this.failures.push(err) },
      spawn,
    );
    this.worker.start();
  }

  /** Encodes a full answer of `type` and hands it to the worker (not waiting); its id. */
  post(type: McpTypeUrl | string, resources: readonly AnyMessage[]): number {
    const { DiscoveryResponse, Any } = this.protos;
    const msg = DiscoveryResponse.fromObject({
      versionInfo: 'v',
      typeUrl: typeof type === 'string' ? type : type.url,
      nonce: String(++this.nonce),
    });
    (msg as unknown as { resources: unknown[] }).resources = resources.map((r) => Any.create(r));
    return this.worker.post(this.gen, DiscoveryResponse.encode(msg).finish());
  }

  /** Posts one answer and waits until the worker said something about it; the outcome of applying it. */
  async answer(type: McpTypeUrl, resources: readonly AnyMessage[]): Promise<ResponseOutcome | undefined> {
    const id = this.post(type, resources);
    await this.until(id);
    return this.said.find(({ m }) => m.id === id)?.outcome;
  }

  /** Resolves once the worker said something about the response `id` (and so every one before). */
  until(id: number): Promise<void> {
    if ((this.said.at(-1)?.m.id ?? 0) >= id) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n: id, resolve }));
  }

  /** A new stream, as McpClient.connect does it. */
  reconnect(): void {
    this.gen++;
    this.worker.generation(this.gen);
    this.state.resync();
  }

  close(): Promise<void> {
    return this.worker.close();
  }

  private onMessage(m: FromWorker): void {
    const type = m.type === 'read' ? this.urls.find((u) => u.url === m.typeUrl) : undefined;
    const current = m.gen === this.gen;
    if (m.type === 'read' && m.error !== undefined) this.failures.push(new Error(m.error));
    const read = current && type && m.type === 'read' && m.error === undefined;
    const outcome = read ? this.state.apply(type, frozen(m.read)) : undefined;
    this.said.push(outcome ? { m, outcome } : { m });
    this.waiters = this.waiters.filter((w) => (m.id >= w.n ? (w.resolve(), false) : true));
  }
}
