/**
 * ISO-8601 durations as the specification's `[acceptance] stale_after` uses them (`P180D`, `P1Y`,
 * `P6M`, `P2W`, `P1Y2M10DT2H`), turned into whole days the way the details page fixes them:
 * Y = 365 days, M = 30 days, W = 7 days, time parts ignored. No calendar arithmetic, so the same
 * duration always adds the same number of days whatever the start date.
 */
const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Days in `value`, or undefined when it is not such a duration (bare `P`, `PT`, a trailing `T`, fractions, signs). */
export function durationDays(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DURATION.exec(value);
  if (!m || m.slice(1).every((g) => g === undefined)) return undefined;
  // `P1DT` matches with no time part: a `T` must be followed by at least one component.
  if (value.includes('T') && m.slice(5).every((g) => g === undefined)) return undefined;
  const [y, mo, w, d] = m.slice(1, 5).map((g) => (g === undefined ? 0 : Number(g)));
  const days = y! * 365 + mo! * 30 + w! * 7 + d!;
  return Number.isSafeInteger(days) ? days : undefined;
}

/** True when `value` is a duration `durationDays` reads. */
export const isDuration = (value: unknown): boolean => durationDays(value) !== undefined;
