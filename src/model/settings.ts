/**
 * What an object of a plugin's kind sets, as text for people: `/debug/config` lists it (`settings`) and the debug
 * page shows it on the services it applies to, without knowing any plugin's kind. A plugin describes its own
 * objects (KindSpec.describe); a credential is never part of a description: a line says that a Secret is
 * referenced (by name and key), or that a value is written in the object, never the value.
 */
import type { ObjectRef } from './result.ts';

/** One setting: a short label (`route`, `auth`, `rule 1`) and its value as one line of text. */
export interface SettingLine {
  readonly label: string;
  readonly value: string;
}

/**
 * Which services an object applies to: the services with one of `hosts` (as written, a short name in the object's
 * namespace), or every service detected as `protocol` in `namespace` (`*`: every namespace).
 */
export type SettingsScope =
  { readonly hosts: readonly string[] } | { readonly protocol: string; readonly namespace: string };

/** An object's settings, in the order the object writes them. */
export interface ObjectSettings {
  readonly appliesTo: SettingsScope;
  readonly lines: readonly SettingLine[];
}

/** What a description may need beyond the object. */
export interface SettingsContext {
  /** The mesh's root namespace: an object there may apply mesh-wide. */
  readonly rootNamespace: string;
}

/** One described object, as `/debug/config` lists it. */
export interface DescribedObject extends ObjectSettings {
  readonly ref: ObjectRef;
  /** ISO time the controller saw its stored version change last (absent when not known). */
  readonly changedAt?: string;
}

/** `value` when defined, as text; `undefined` otherwise (a line left out). */
export function line(label: string, value: string | number | boolean | undefined): SettingLine[] {
  return value === undefined || value === '' ? [] : [{ label, value: String(value) }];
}
