#!/usr/bin/env node
// The `portico` command: runs the compiled controller (npm run build / scripts/setup.sh).
import '../dist/cli/main.js';
