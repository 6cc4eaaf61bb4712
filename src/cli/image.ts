/**
 * `vkit image build`'s handler (declared in `verbs/image.ts`): checks the image name, then builds it
 * with `service/worker-image/build.ts`; an interrupt stops the running step and removes the partial root.
 */
import { invalid } from '../errors.js';
import type { Handler } from '../kit/verb.js';
import { didYouMean } from '../text/suggest.js';
import { interrupts } from './interrupt.js';
import type { imageBuild as imageBuildVerb } from './verbs/image.js';

export const imageBuild: Handler<typeof imageBuildVerb> = async ({ values: v, positionals }) => {
  const { buildWorkerImage, WORKER_IMAGES } = await import('../service/worker-image/build.js');
  const names = Object.keys(WORKER_IMAGES);
  const usage = 'Usage: vkit image build coq|spin [--force] (`vkit image build --help` says more).';
  if (positionals.length !== 1)
    throw invalid(
      'ERR_USAGE',
      positionals.length ? `one image at a time, got ${positionals.join(' ')}` : 'which image? coq or spin',
      {},
      usage,
    );
  const name = positionals[0]!;
  if (!Object.hasOwn(WORKER_IMAGES, name))
    throw invalid(
      'ERR_USAGE',
      `unknown worker image \`${name}\`${didYouMean(name, names)}: known are ${names.join(', ')}`,
      {},
      usage,
    );
  const stop = new AbortController();
  let heard: string | undefined;
  const unlisten = interrupts().listen((signal) => {
    heard = signal;
    stop.abort();
  });
  try {
    const code = await buildWorkerImage(name as keyof typeof WORKER_IMAGES, {
      force: v.force,
      log: (line) => process.stdout.write(`vkit image build: ${line}\n`),
      fail: (line) => process.stderr.write(`vkit image build: ${line}\n`),
      signal: stop.signal,
    });
    return heard ? (heard === 'SIGINT' ? 130 : 143) : code;
  } finally {
    unlisten();
  }
};
