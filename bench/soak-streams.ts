// The soak's RDS streams: one state-of-the-world stream per watched service, subscribed to its route as a
// MetaProtocol proxy is, ten streams per gRPC channel (connection). Every response after the first reports the
// route it carries; every response is ACKed.
import { RdsTestClient, ackOf, sotwRequest } from '../test/fakes/rds-client.ts';

const STREAMS_PER_CHANNEL = 10;

export interface SoakStreams {
  /** Streams that ended (they are not re-opened). */
  errors(): number;
  close(): void;
}

/** Service i's route: `<host>_20880` (bench/synthetic.ts). */
export function routeOf(i: number): string {
  return `svc-${i}.ns-${i % 50}.svc.cluster.local_20880`;
}

/** Opens `count` streams on the RDS server at 127.0.0.1:port; resolves once each has its first answer. */
export async function openStreams(
  port: number,
  count: number,
  onPush: (route: string, at: number) => void,
): Promise<SoakStreams> {
  const clients: RdsTestClient[] = [];
  let ended = 0;
  const first: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    if (i % STREAMS_PER_CHANNEL === 0) clients.push(new RdsTestClient(port, 'insecure', '127.0.0.1'));
    const stream = clients.at(-1)!.sotw();
    const names = [routeOf(i)];
    stream.send(sotwRequest(names));
    let answered!: () => void;
    first.push(new Promise<void>((r) => (answered = r)));
    void (async () => {
      for (let n = 0; ; n++) {
        const resp = await stream.next(2 ** 31 - 1);
        if (n === 0) answered();
        else for (const r of resp.resources) onPush((r.json as { name: string }).name, Date.now());
        stream.send(ackOf(resp, names));
      }
    })().catch(() => ended++);
  }
  await Promise.all(first);
  return {
    errors: () => ended,
    close: () => {
      for (const c of clients) c.close();
    },
  };
}
