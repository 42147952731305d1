// The one test entry: every suite is imported here so the whole suite runs in one process.
// Keep one line per suite file; keep them sorted.
import './conformance/conformance.test.ts';
import './conformance/generative.test.ts';
import './manifests/manifests.test.ts';
import './model/names.test.ts';
import './plugins/dubbo/generator.test.ts';
import './plugins/dubbo/golden.test.ts';
import './plugins/metaprotocol/gateway.test.ts';
import './plugins/metaprotocol/mesh.test.ts';
import './plugins/metaprotocol/rate-limit.test.ts';
import './plugins/metaprotocol/sidecar-golden.test.ts';
import './plugins/metaprotocol/sidecar.test.ts';
import './plugins/thrift/generator.test.ts';
import './plugins/thrift/golden.test.ts';
import './xds-rds/routes.test.ts';
