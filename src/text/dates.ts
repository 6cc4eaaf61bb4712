/**
 * The calendar vkit shares (acceptance documents, the gate's `--now`): UTC calendar dates (`YYYY-MM-DD`, real dates only) and
 * RFC 3339 date-times with an offset. Effect, specifications, decisions and watched-fail dates all
 * judge dates here, so one document is never read two ways.
 */
/** A UTC calendar date, `YYYY-MM-DD`. */
export type IsoDate = string;

const DAY_MS = 86_400_000;

/** Today's UTC calendar date. */
export function todayUtc(now = new Date()): IsoDate {
  return now.toISOString().slice(0, 10);
}

/** Milliseconds at UTC midnight of a real calendar date `YYYY-MM-DD`, else undefined (2026-02-30 is refused). */
export function parseIsoDate(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return ms;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time with a `Z` or numeric offset (a bare date or a local time is not one). */
export function isRfc3339(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = RFC3339.exec(value);
  if (!m || parseIsoDate(m[1]) === undefined) return false;
  if (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4]) > 60) return false;
  return !Number.isNaN(Date.parse(value.replace(/t/, 'T').replace(/z$/, 'Z')));
}

/** The UTC calendar date of an RFC 3339 date-time (`2026-09-01T23:30:00-02:00` is 2026-09-02). */
export function utcDateOf(dateTime: string): IsoDate | undefined {
  if (!isRfc3339(dateTime)) return undefined;
  return new Date(Date.parse(dateTime.replace(/t/, 'T').replace(/z$/, 'Z'))).toISOString().slice(0, 10);
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return new Date(parseIsoDate(date)! + days * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` that is a real calendar date. */
export const isIsoDate = (value: unknown): value is string => parseIsoDate(value) !== undefined;
