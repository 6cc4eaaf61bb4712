/** A small deterministic PRNG (mulberry32): seeded tests print their seed, so a failure replays. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded generator with the draws fuzz generators use. */
export class Rng {
  private readonly source: () => number;
  constructor(seed: number) {
    this.source = prng(seed);
  }
  next(): number {
    return this.source();
  }
  /** 0 .. n-1 */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** lo .. hi, both included. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(items: ReadonlyArray<readonly [number, T]>): T {
    let n = this.next() * items.reduce((s, [w]) => s + w, 0);
    for (const [w, value] of items) if ((n -= w) < 0) return value;
    return items[items.length - 1]![1];
  }
}

/** Each case's own generator, so that one case reruns without the ones before it. */
export const caseRng = (seed: number, index: number): Rng => new Rng((seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0);
