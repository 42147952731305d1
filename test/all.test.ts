// The one test entry: every suite is imported here so the whole suite runs in one process.
// Keep one line per suite file; keep them sorted.
import './model/names.test.ts';
