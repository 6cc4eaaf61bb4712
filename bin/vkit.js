#!/usr/bin/env node
// `build` and `gate` first ask the root's resident build process, when one runs (`vkit daemon start`);
// anything it does not serve runs here. The process is guarded first: a closed stdout or stderr, or
// an error escaping a handler, never changes the exit code (src/cli/main.ts). The built-in kinds
// (rules/) are handed in here, by the registry module's URL (loaded when a config is first read):
// src/ never imports them.
const argv = process.argv.slice(2);
const cli = await import('../dist/src/cli/main.js');
cli.guardProcess(argv);
(await import('../dist/src/config/kind.js')).installKinds(new URL('../dist/rules/index.js', import.meta.url).href);
const served =
  argv[0] === 'build' || argv[0] === 'gate'
    ? await (await import('../dist/src/daemon/client.js')).viaDaemon(argv)
    : undefined;
process.exitCode = served ?? (await cli.runCli(argv));
