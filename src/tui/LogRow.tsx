/** One finished action or settle line, written once to the terminal's scrollback via `<Static>`. */
import { Text } from 'ink';
import { colorOf } from './colors.js';
import type { LogLine } from './state.js';

export function LogRow({ line }: { line: LogLine }) {
  if (line.kind === 'action') {
    return (
      <Text>
        <Text color={colorOf(line.word)}>{line.word.padEnd(7)}</Text> {line.text}
      </Text>
    );
  }
  return <Text color={colorOf(line.word)}>{line.text}</Text>;
}
