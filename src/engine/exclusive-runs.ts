/**
 * Jobs that make declared outputs run alone. A check in the work tree can write anywhere in it, so
 * a sibling running beside one could write that one's output in the instant between its exit and
 * its worker hashing what it made: the receipt would name bytes its own check never wrote. A job
 * with declared outputs therefore waits until no other job runs, and no job starts until it (its
 * hashing included) is done; other jobs run beside each other as before. Waiters are served in
 * arrival order, so a stream of ordinary jobs never starves one that must run alone.
 */
export class ExclusiveRuns {
  private sharing = 0;
  private alone = false;
  private readonly waiting: { exclusive: boolean; grant: () => void }[] = [];

  /** Runs `work` alone when `exclusive`, else beside any other job that is not alone. */
  async run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    await this.acquire(exclusive);
    try {
      return await work();
    } finally {
      this.release(exclusive);
    }
  }

  private free(exclusive: boolean): boolean {
    return !this.alone && (!exclusive || this.sharing === 0);
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.alone = true;
    else this.sharing++;
  }

  private acquire(exclusive: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.free(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((grant) => this.waiting.push({ exclusive, grant }));
  }

  private release(exclusive: boolean): void {
    if (exclusive) this.alone = false;
    else this.sharing--;
    while (this.waiting.length > 0 && this.free(this.waiting[0]!.exclusive)) {
      const next = this.waiting.shift()!;
      this.take(next.exclusive);
      next.grant();
    }
  }
}
