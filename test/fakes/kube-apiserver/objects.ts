// Helpers over object JSON shared by the verb implementations.
import { isDeepStrictEqual } from 'node:util';
import { groupVersion } from './registry.ts';
import { invalid } from './status.ts';
import type { KubeObject, ResourceType } from './types.ts';

export function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** RFC 3339 with seconds, as Kubernetes prints metav1.Time. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A copy with apiVersion/kind set for the version the client asked for. */
export function present(rt: ResourceType, version: string, obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = structuredClone(obj);
  return { apiVersion: groupVersion(rt.group, version), kind: rt.kind, ...rest };
}

/** Everything but metadata and status: what `metadata.generation` tracks. */
export function specOf(obj: KubeObject | undefined): Record<string, unknown> {
  if (!obj) return {};
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

export function specChanged(before: KubeObject | undefined, after: KubeObject): boolean {
  return !isDeepStrictEqual(specOf(before), specOf(after));
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** 422 Invalid for a missing or non-DNS-1123 name, like the real server's validation. */
export function validateName(rt: ResourceType, name: string | undefined): string {
  if (!name) {
    throw invalid(rt, '', [
      { field: 'metadata.name', message: 'Required value: name or generateName is required' },
    ]);
  }
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    throw invalid(rt, name, [
      {
        field: 'metadata.name',
        message:
          `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric ` +
          "characters, '-' or '.', and must start and end with an alphanumeric character",
      },
    ]);
  }
  return name;
}

/** Coerces a request body into an object with a metadata map (anything else is a 400 upstream). */
export function asKubeObject(body: unknown): KubeObject | undefined {
  if (!isObj(body)) return undefined;
  const metadata = body.metadata ?? {};
  if (!isObj(metadata)) return undefined;
  return { ...structuredClone(body), metadata: structuredClone(metadata) };
}
