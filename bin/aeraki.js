#!/usr/bin/env node
// Launcher: runs the TypeScript entry through tsx, so `npm ci` alone leaves a working `npx aeraki`.
import { register } from 'tsx/esm/api';

register();
await import('../cmd/aeraki.ts');
