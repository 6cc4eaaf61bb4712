/** The TUI face: `startTui` for `vkit watch`, `renderOverviewOnce` for `vkit tui`. Load it lazily: it pulls in Ink and React. */
import { createElement } from 'react';
import { render } from 'ink';
import { App, type AppProps } from './App.js';

export interface StartTuiOptions extends Omit<AppProps, 'rows' | 'initial'> {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
}

export interface TuiHandle {
  unmount: () => void;
  waitUntilExit: () => Promise<unknown>;
}

/**
 * Renders the live TUI. Ctrl-C is a key here (raw mode), not a signal: it calls `onQuit('interrupt')`,
 * `q` calls `onQuit('quit')`, so the caller decides how to stop (cancel running attempts, then
 * `unmount`) and with which exit code.
 */
export function startTui(opts: StartTuiOptions): TuiHandle {
  const stdout = opts.stdout ?? process.stdout;
  const props = {
    events: opts.events,
    root: opts.root,
    store: opts.store,
    onRerun: opts.onRerun,
    onRerunAll: opts.onRerunAll,
    onQuit: opts.onQuit,
    loadDetails: opts.loadDetails,
    loadLive: opts.loadLive,
  };
  const instance = render(createElement(App, { ...props, rows: stdout.rows ?? 24 }), {
    stdout,
    stdin: opts.stdin ?? process.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const onResize = () => instance.rerender(createElement(App, { ...props, rows: stdout.rows ?? 24 }));
  stdout.on('resize', onResize);
  return {
    unmount: () => {
      stdout.off('resize', onResize);
      instance.unmount();
    },
    waitUntilExit: () => instance.waitUntilExit(),
  };
}
