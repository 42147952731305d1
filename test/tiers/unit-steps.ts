// The unit tier's lengths of the seeded differential sequences, imported by test/unit.test.ts before the suites
// read them: a fifth of the full suite's steps, so the edit-test loop stays under a minute on a busy machine while
// the same suites, seeds and checks still run. npm test (the CI gate) keeps the full lengths; a value already set
// in the environment wins.
const UNIT_STEPS: Record<string, string> = {
  DIFF_STEPS: '1000', // envoyfilter/ and xds-rds/ incremental-differential (full: 5000)
  RECONCILE_DIFF_STEPS: '300', // reconcile/incremental-differential (full: 1500)
  MCP_DIFF_STEPS: '600', // controller/mcp/differential (full: 3000)
};
for (const [name, steps] of Object.entries(UNIT_STEPS)) process.env[name] ??= steps;
