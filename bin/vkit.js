#!/usr/bin/env node
// `build` and `gate` first ask the root's resident build process, when one runs (`vkit daemon start`);
// anything it does not serve runs here.
const argv = process.argv.slice(2);
const served = argv[0] === 'build' || argv[0] === 'gate' ? await (await import('../dist/src/daemon/client.js')).viaDaemon(argv) : undefined;
process.exitCode = served ?? (await (await import('../dist/src/cli/main.js')).runCli(argv));
