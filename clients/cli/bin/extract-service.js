#!/usr/bin/env node
// The `extract-service` command (package.json "bin"): runs the TypeScript CLI through tsx, as the rest of
// the project runs, so a checkout needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
