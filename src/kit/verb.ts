/**
 * What one verb of the CLI is: its name, its flags (node:util `parseArgs` options), its help and the
 * lines the command list and the CLI table of docs/cli.md show, bound to a handler imported only when the verb runs.
 * vkit's own verbs are declared in `src/cli/verbs/` and listed in `src/cli/table.ts`; a kind adds
 * its own through its `verbs` (`rules/<kind>/verbs.ts`). Nothing here imports anything heavy:
 * `vkit --help` reads the declarations only.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { invalid } from '../errors.js';
import { didYouMean } from '../text/suggest.js';
import type { KindHost } from './host.js';

export type Flags = NonNullable<ParseArgsConfig['options']>;

export interface Spec<O extends Flags = Flags> {
  /** One, two or three words: `build`, `run show`, `acceptance check`. */
  readonly name: string;
  /** Its line in `vkit --help`. */
  readonly summary: string;
  /** Its row in the CLI table of docs/cli.md (default: the summary). */
  readonly readme?: string;
  /** The heading `vkit --help` lists this verb's group under, as one indented block (given by one member). */
  readonly heading?: string;
  /** What `vkit --help` lists instead of the name (`formal package digest [ID]`). */
  readonly label?: string;
  readonly flags: O;
  /** Whether the verb takes positional arguments (files, ids); without, one is a usage error. */
  readonly positionals?: boolean;
  /** `vkit <name> --help`: starts with `Usage: vkit <name>`. */
  readonly help: string;
}

/** Declares a verb; `const` keeps its flags literal, so a handler's values are typed by them. */
export function defineVerb<const O extends Flags>(spec: Spec<O>): Spec<O> {
  return spec;
}

type Values<O extends Flags> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>
>['values'];

/**
 * What a handler gets: the verb's flags parsed, its positionals, the running vkit's version, and the
 * operations the core lends a kind's verb (`host`, loaded on first use: the service is not loaded
 * for a verb that does not ask).
 */
export interface Input<S extends Spec> {
  values: Values<S['flags']>;
  positionals: string[];
  version: () => string;
  host: () => Promise<KindHost>;
}

export type Handler<S extends Spec> = (input: Input<S>) => Promise<number>;

/** A declared verb bound to its handler. */
export interface Verb {
  readonly spec: Spec;
  /** The handler, imported on first use. */
  readonly load: () => Promise<Handler<Spec>>;
}

/** Binds a declaration to its handler; the handler's values are typed by the declaration's flags. */
export function bindVerb<S extends Spec>(spec: S, load: () => Promise<Handler<S>>): Verb {
  return { spec, load: load as unknown as () => Promise<Handler<Spec>> };
}

/** Strict parsing by the verb's own flags; a usage error is exit 2, pointing at the verb's help. */
export function parseInput<S extends Spec>(spec: S, args: string[]): Pick<Input<S>, 'values' | 'positionals'> {
  try {
    const r = parseArgs({ args, options: spec.flags, strict: true, allowPositionals: spec.positionals ?? false });
    return { values: r.values as Values<S['flags']>, positionals: r.positionals };
  } catch (error) {
    const message = (error as Error).message;
    // node's wording for a misspelt flag: `Unknown option '--forse'. To specify a positional ...`.
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message)?.[1];
    if (unknown) {
      const flags = Object.keys(spec.flags).map((f) => `--${f}`);
      throw invalid(
        'ERR_USAGE',
        `Unknown flag \`${unknown}\`${didYouMean(unknown, flags)}`,
        { path: unknown },
        `See \`vkit ${spec.name} --help\` for the flags.`,
      );
    }
    throw invalid('ERR_USAGE', message, {}, `See \`vkit ${spec.name} --help\` for the flags.`);
  }
}

/** `--root`, `--store` and `--json`: the flags of every verb that reads a workspace. */
export const ROOT_STORE_JSON = {
  root: { type: 'string' },
  store: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const satisfies Flags;

/** The common flags of the build verbs: `ROOT_STORE_JSON` and `--jobs`. */
export const COMMON = { ...ROOT_STORE_JSON, jobs: { type: 'string' } } as const satisfies Flags;

export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
