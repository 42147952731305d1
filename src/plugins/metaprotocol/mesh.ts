/**
 * Mesh-config parts of every MetaProtocolProxy (Aeraki internal/plugin/metaprotocol/accesslog.go and
 * metaprotocolproxy.go configAccessLog / configTracing).
 */
import { isPlainObject } from '../../util/json.ts';
import type { MeshConfig } from '../../model/objects.ts';

const FILE_ACCESS_LOGGER = 'envoy.access_loggers.file';
const FILE_ACCESS_LOG_TYPE = 'type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog';

/** Aeraki's built-in MetaProtocol text format (note the two spaces after %DURATION% and the final newline). */
export const DEFAULT_TEXT_FORMAT =
  '[%START_TIME%] %REQ(X-META-PROTOCOL-APPLICATION-PROTOCOL)% ' +
  '%RESPONSE_CODE% %RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% ' +
  '"%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% ' +
  '%DURATION%  "%REQ(X-FORWARDED-FOR)%" "%REQ(X-REQUEST-ID)%" ' +
  '%UPSTREAM_CLUSTER% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% ' +
  '%DOWNSTREAM_REMOTE_ADDRESS% %ROUTE_NAME%\n';

/** Aeraki's built-in JSON format (15 keys). */
export const DEFAULT_JSON_FORMAT: Readonly<Record<string, string>> = Object.freeze({
  start_time: '%START_TIME%',
  route_name: '%ROUTE_NAME%',
  application_protocol: '%REQ(X-META-PROTOCOL-APPLICATION-PROTOCOL)%',
  response_code: '%RESPONSE_CODE%',
  response_code_details: '%RESPONSE_CODE_DETAILS%',
  connection_termination_details: '%CONNECTION_TERMINATION_DETAILS%',
  bytes_received: '%BYTES_RECEIVED%',
  bytes_sent: '%BYTES_SENT%',
  duration: '%DURATION%',
  request_id: '%REQ(X-REQUEST-ID)%',
  upstream_cluster: '%UPSTREAM_CLUSTER%',
  upstream_local_address: '%UPSTREAM_LOCAL_ADDRESS%',
  downstream_local_address: '%DOWNSTREAM_LOCAL_ADDRESS%',
  downstream_remote_address: '%DOWNSTREAM_REMOTE_ADDRESS%',
  upstream_transport_failure_reason: '%UPSTREAM_TRANSPORT_FAILURE_REASON%',
});

/** `accessLogFormat` parsed as a JSON object; anything else falls back to the built-in map, as in Aeraki. */
function jsonFormat(format: string): Record<string, unknown> {
  if (format !== '') {
    try {
      const parsed: unknown = JSON.parse(format);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // not JSON: the built-in format is used (Aeraki logs and falls back)
    }
  }
  return { ...DEFAULT_JSON_FORMAT };
}

/** The `accessLog` list when the mesh has an `accessLogFile` (Aeraki configAccessLog), else undefined. */
export function accessLogOf(mesh: MeshConfig): Record<string, unknown>[] | undefined {
  if (!mesh.accessLogFile) return undefined;
  const logFormat =
    mesh.accessLogEncoding === 'JSON'
      ? { jsonFormat: jsonFormat(mesh.accessLogFormat) }
      : { textFormatSource: { inlineString: mesh.accessLogFormat || DEFAULT_TEXT_FORMAT } };
  return [
    {
      name: FILE_ACCESS_LOGGER,
      typedConfig: { '@type': FILE_ACCESS_LOG_TYPE, path: mesh.accessLogFile, logFormat },
    },
  ];
}

/** envoy.type.v3.Percent: a zero value is written `{}` (the message is set, its field is the default). */
function percent(value: number): Record<string, unknown> {
  return value === 0 ? {} : { value };
}

/**
 * The `tracing` block unless the mesh disables tracing (Aeraki configTracing), else undefined. Random sampling is
 * `defaultConfig.tracing.sampling`, 1.0 when `defaultConfig.tracing` is absent.
 */
export function tracingOf(mesh: MeshConfig): Record<string, unknown> | undefined {
  if (!mesh.enableTracing) return undefined;
  return {
    clientSampling: percent(100),
    randomSampling: percent(mesh.tracingSampling ?? 1),
    overallSampling: percent(100),
  };
}
