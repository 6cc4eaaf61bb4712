/** A progress line while actions run: done/total and the running labels. */
import { Text } from 'ink';
import type { ItemView, Progress } from './state.js';

export function ProgressLine({ progress, items }: { progress: Progress; items: readonly ItemView[] }) {
  const running = items.filter((i) => i.status === 'running').map((i) => i.id);
  const queued = items.filter((i) => i.status === 'queued').length;
  return (
    <Text color="cyan" wrap="truncate-end">
      running {progress.done}/{progress.total} done{queued ? `, ${queued} queued` : ''}
      {running.length ? `: ${running.join(', ')}` : ''}
    </Text>
  );
}
