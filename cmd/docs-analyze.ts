/** `npm run docs:analyze`: writes docs/analyze.md, the code reference of `aeraki analyze` (src/analyze/reference.ts). */
import { writeFileSync } from 'node:fs';
import { ANALYSIS_CODES } from '../src/analyze/codes.ts';
import { referenceMarkdown } from '../src/analyze/reference.ts';

const target = new URL('../docs/analyze.md', import.meta.url);
writeFileSync(target, referenceMarkdown(ANALYSIS_CODES));
process.stdout.write(`wrote ${target.pathname}\n`);
