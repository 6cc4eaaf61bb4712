/** Flag parsing shared by the CLI verbs: strict node:util parseArgs, usage errors as exit 2. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { invalid } from '../errors.js';

export type Command = (args: string[], version: () => string) => Promise<number>;

/** The flags every verb that reads a workspace takes. */
export const BASE_FLAGS = {
  root: { type: 'string' },
  store: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

type Parsed<O extends NonNullable<ParseArgsConfig['options']>> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>
>['values'];

export function parseFlags<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Parsed<O>;
  } catch (error) {
    throw invalid('ERR_USAGE', (error as Error).message, {}, 'See --help for the flags.');
  }
}

export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
