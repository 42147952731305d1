// The plugins' kinds as the app passes them: what tests parse plugin objects with (parseConfigObject,
// parseRawObjects) and build stores with.
import { DEFAULT_PARSE_OPTIONS, type ParseOptions } from '../../src/model/parse/parse.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';

export const PLUGIN_KINDS = createPluginKinds();

export const PARSE_OPTIONS: ParseOptions = Object.freeze({ ...DEFAULT_PARSE_OPTIONS, kinds: PLUGIN_KINDS });
