// One HTTP request: record it, apply faults, route it and answer with JSON (or a watch stream).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiGroup, apiGroupList, apiResourceList, coreVersions, versionInfo } from './discovery.ts';
import type { Faults } from './faults.ts';
import { isObj } from './objects.ts';
import { deleteObject, getObject, listObjects } from './reads.ts';
import type { Registry } from './registry.ts';
import { route, verbOf, type Route } from './router.ts';
import { parseFieldSelector, parseLabelSelector, type Selector } from './selectors.ts';
import { ApiError, failure, rbacForbidden, statusForCode, type StatusObject } from './status.ts';
import type { ObjectStore } from './store.ts';
import type { RequestRecord } from './types.ts';
import type { WatchHub } from './watch.ts';
import {
  createObject,
  parseBody,
  patchObject,
  patchTypeOf,
  updateObject,
  type WriteContext,
  type WriteOptions,
} from './writes.ts';

export interface HandlerContext {
  registry: Registry;
  store: ObjectStore;
  hub: WatchHub;
  faults: Faults;
  write: WriteContext;
  now: () => Date;
  /** Called once per request with its final record. */
  record: (r: RequestRecord) => void;
  nextSeq: () => number;
}

function send(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function describe(r: RequestRecord, rt: Route): void {
  if (rt.kind === 'resource') {
    Object.assign(r, {
      group: rt.group,
      version: rt.version,
      resource: rt.plural,
      namespace: rt.namespace,
      name: rt.name,
      subresource: rt.subresource,
      verb: verbOf(r.method, rt.name !== undefined, rt.watchPath || flag(r.query.watch)),
    });
  } else if (rt.kind === 'unknown') {
    // The authorizer sees these attributes before routing (an RBAC rule may forbid a resource not served).
    const verb =
      rt.plural === undefined ? undefined : verbOf(r.method, rt.name !== undefined, flag(r.query.watch));
    Object.assign(r, {
      group: rt.group,
      version: rt.version,
      resource: rt.plural,
      namespace: rt.namespace,
      name: rt.name,
      verb,
    });
  }
}

/** Go's strconv.ParseBool, which the real server uses for query flags (python sends `watch=True`). */
function flag(v: string | undefined): boolean {
  return v !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
}

const NOT_FOUND = failure(404, 'NotFound', 'the server could not find the requested resource');

function discovery(ctx: HandlerContext, rt: Route, host: string): unknown {
  switch (rt.kind) {
    case 'version':
      return versionInfo();
    case 'api':
      return coreVersions(host);
    case 'apis':
      return apiGroupList(ctx.registry);
    case 'group':
      return apiGroup(ctx.registry, rt.group) ?? new ApiError(NOT_FOUND);
    case 'resources':
      return apiResourceList(ctx.registry, rt.group, rt.version) ?? new ApiError(NOT_FOUND);
    default:
      return new ApiError(NOT_FOUND);
  }
}

/** Serves one request; never rejects (every failure becomes a Status answer or a dropped socket). */
export async function handle(ctx: HandlerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const auth = req.headers.authorization;
  const r: RequestRecord = {
    seq: ctx.nextSeq(),
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    contentType: req.headers['content-type'],
    userAgent: req.headers['user-agent'],
    token: auth?.startsWith('Bearer ') ? auth.slice(7) : undefined,
    status: 0,
  };
  if (url.searchParams.has('fieldManager'))
    r.fieldManager = url.searchParams.get('fieldManager') ?? undefined;
  const rt = route(ctx.registry, url.pathname);
  describe(r, rt);
  let recorded = false;
  const once = (rec: RequestRecord): void => {
    if (recorded) return;
    recorded = true;
    ctx.record(rec);
  };
  res.on('finish', () => once({ ...r, status: res.statusCode }));
  try {
    const decision = ctx.faults.decide(r);
    if (decision.delayMs > 0) await sleep(decision.delayMs);
    const f = decision.fault;
    if (f?.drop) {
      once({ ...r, status: 0, injected: true });
      req.socket.destroy();
      return;
    }
    if (f?.forbid) {
      r.injected = true;
      send(res, 403, rbacForbidden(r));
      return;
    }
    if (f?.status !== undefined) {
      r.injected = true;
      const headers: Record<string, string> = {};
      if (f.retryAfterSeconds !== undefined) headers['retry-after'] = String(f.retryAfterSeconds);
      send(res, f.status, statusForCode(f.status, f.reason, f.message), headers);
      return;
    }
    const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) ? await readBody(req) : '';
    if (rt.kind !== 'resource') {
      const doc = r.method === 'GET' ? discovery(ctx, rt, req.headers.host ?? '') : new ApiError(NOT_FOUND);
      if (doc instanceof ApiError) send(res, doc.status.code, doc.status);
      else send(res, 200, doc);
      return;
    }
    resource(ctx, rt, r, body, res);
    if (r.verb === 'watch' && res.headersSent) once({ ...r, status: res.statusCode });
  } catch (err) {
    const status: StatusObject =
      err instanceof ApiError
        ? err.status
        : failure(500, 'InternalError', `fake kube-apiserver: ${String(err)}`);
    send(res, status.code, status);
  }
}

function resource(
  ctx: HandlerContext,
  rt: Extract<Route, { kind: 'resource' }>,
  r: RequestRecord,
  body: string,
  res: ServerResponse,
): void {
  const q = r.query;
  const { rt: type, version, namespace, name } = rt;
  const selectors: Selector[] = [parseLabelSelector(q.labelSelector), parseFieldSelector(q.fieldSelector)];
  const opts: WriteOptions = {
    fieldManager: q.fieldManager,
    userAgent: r.userAgent,
    force: flag(q.force),
    dryRun: q.dryRun !== undefined && q.dryRun !== '',
    subresource: rt.subresource,
  };
  switch (r.verb) {
    case 'get':
      return send(res, 200, getObject(ctx.store, type, version, namespace, name!));
    case 'list':
      return send(
        res,
        200,
        listObjects(ctx.store, type, version, namespace, selectors, {
          limit: q.limit === undefined ? undefined : Number(q.limit),
          continueToken: q.continue,
        }),
      );
    case 'watch': {
      const ns: Selector = (o) => namespace === undefined || o.metadata.namespace === namespace;
      const byName: Selector = (o) => name === undefined || o.metadata.name === name;
      const timeout = q.timeoutSeconds === undefined ? undefined : Number(q.timeoutSeconds);
      ctx.hub.open(
        {
          rt: type,
          version,
          resourceVersion: q.resourceVersion,
          allowWatchBookmarks: flag(q.allowWatchBookmarks),
          timeoutSeconds: timeout,
          filters: [ns, byName, ...selectors],
        },
        res,
      );
      return;
    }
    case 'create':
      return send(res, 201, createObject(ctx.write, type, version, namespace, parseBody(body, false), opts));
    case 'update':
      return send(
        res,
        200,
        updateObject(ctx.write, type, version, namespace, name!, parseBody(body, false), opts),
      );
    case 'patch': {
      const kind = patchTypeOf(r.contentType);
      const out = patchObject(
        ctx.write,
        type,
        version,
        namespace,
        name!,
        kind,
        parseBody(body, kind === 'apply'),
        opts,
      );
      return send(res, out.created ? 201 : 200, out.object);
    }
    case 'delete': {
      const options = body.trim() === '' ? {} : parseBody(body, false);
      const out = deleteObject(
        ctx.store,
        ctx.now,
        type,
        version,
        namespace,
        name!,
        isObj(options) ? options : {},
        opts.dryRun,
      );
      return send(res, 200, out);
    }
    case 'deletecollection': {
      const list = listObjects(ctx.store, type, version, namespace, selectors);
      for (const o of list.items)
        deleteObject(ctx.store, ctx.now, type, version, o.metadata.namespace, o.metadata.name!, {});
      return send(res, 200, { ...list, metadata: { resourceVersion: String(ctx.store.currentRv()) } });
    }
    default:
      return send(
        res,
        405,
        failure(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`),
      );
  }
}
