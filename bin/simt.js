#!/usr/bin/env node
// The `simt` command: runs the built CLI (npm run build first when working from a clone).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
