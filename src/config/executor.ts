/**
 * Who runs a build's jobs (docs/fleet.md): `{ kind: 'local' }`, this machine's detached workers (the
 * default), or `{ kind: 'nats', url, stream?, fallback? }`, the workers of a fleet reached through
 * NATS JetStream. Machine configuration like `remote`: `--executor` overrides it. Bad values are
 * exit 2 naming the field, with a did-you-mean for a misspelt kind.
 */
import * as v from 'valibot';
import { invalid } from '../errors.js';
import { didYouMean } from '../text/suggest.js';

const EXECUTOR_KINDS = ['local', 'nats'] as const;

export type ExecutorConfig =
  | { kind: 'local' }
  | {
      kind: 'nats';
      /** The NATS server (`nats://HOST:PORT`). */
      url: string;
      /** The JetStream stream jobs are published on (default `VKIT_JOBS`). */
      stream?: string;
      /** NATS unreachable when a job is submitted: run it here (`local`) instead of ending it BLOCKED. */
      fallback?: 'local';
    };

/** Why `url` is not a NATS server URL (`nats://HOST:PORT`), or undefined. */
export function natsUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Expected a nats://HOST:PORT URL';
  }
  if (parsed.protocol !== 'nats:') return `Expected a nats://HOST:PORT URL, not a ${parsed.protocol}// one`;
  if (!parsed.hostname) return 'Expected a nats://HOST:PORT URL naming its host';
  if (parsed.pathname && parsed.pathname !== '/') return 'Expected a nats://HOST:PORT URL without a path';
  return undefined;
}

/** JetStream stream names: no spaces, dots, wildcards or path separators. */
const STREAM = /^[A-Za-z0-9_-]{1,64}$/;

const kindMessage = (issue: { input: unknown }): string => {
  const got = issue.input;
  return typeof got === 'string'
    ? `Unknown executor kind \`${got}\`${didYouMean(got, EXECUTOR_KINDS)}: expected \`local\` or \`nats\``
    : 'Expected the executor kind: `local` or `nats`';
};

export const executorSchema = v.variant(
  'kind',
  [
    v.strictObject({ kind: v.literal('local', kindMessage) }),
    v.strictObject({
      kind: v.literal('nats', kindMessage),
      url: v.pipe(
        v.string('Expected the NATS server as a nats://HOST:PORT URL'),
        v.rawCheck(({ dataset, addIssue }) => {
          const problem = dataset.typed ? natsUrlProblem(dataset.value) : undefined;
          if (problem) addIssue({ message: problem });
        }),
      ),
      stream: v.optional(
        v.pipe(v.string(), v.regex(STREAM, 'Expected a stream name of letters, digits, `_` and `-` (at most 64)')),
      ),
      fallback: v.optional(v.literal('local', 'Expected `fallback: "local"` or no fallback (BLOCKED)')),
    }),
  ],
  kindMessage,
);

/**
 * `--executor VALUE`: `local`, or a `nats://HOST:PORT` URL (the config's stream and fallback kept
 * when it names NATS too). Exit 2 naming the flag otherwise.
 */
export function executorFlag(value: string, configured?: ExecutorConfig): ExecutorConfig {
  if (value === 'local') return { kind: 'local' };
  if (value.includes('://')) {
    const problem = natsUrlProblem(value);
    if (problem) throw invalid('ERR_USAGE', `${problem} for --executor, got \`${value}\``, { path: '--executor' });
    return { ...(configured?.kind === 'nats' ? configured : {}), kind: 'nats', url: value };
  }
  throw invalid(
    'ERR_USAGE',
    `Unknown --executor \`${value}\`${didYouMean(value, EXECUTOR_KINDS)}: expected \`local\` or a nats://HOST:PORT URL`,
    { path: '--executor' },
  );
}
