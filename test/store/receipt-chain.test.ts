/**
 * A receipt is a hit only when the run it names recorded it, through the attempt it names
 * (`receiptChainBroken`, one statement per receipt, or `latestChains`, a build's one query for every
 * label's latest receipt, which must answer the same): bytes that hash to their name
 * prove only that someone wrote them. Each way a forged or borrowed receipt could point elsewhere
 * is refused; the one intact chain is not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/store/store.js';

const KEY = `sha256:${'a'.repeat(64)}`;
const RECEIPT = `sha256:${'b'.repeat(64)}`;

test('a receipt counts only as the result its run recorded through its attempt', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-chain-'));
  const store = new Store(join(dir, 'store'));
  try {
    const from = { host: 'test', reason: 'made here' };
    const base = { key: KEY, label: 'check:a', kind: 'check', outcome: 'PASS' };
    assert.ok(store.lifecycle.importRun(RECEIPT, { ...base, run: 'run-1', attempt: 'att-1' }, from));
    const other = `sha256:${'c'.repeat(64)}`;
    assert.ok(store.lifecycle.importRun(other, { ...base, run: 'run-2', attempt: 'att-2' }, from));
    // A forged second run holding the same receipt, through an attempt of its own.
    assert.ok(store.lifecycle.importRun(RECEIPT, { ...base, run: 'run-3', attempt: 'att-3' }, from));
    store.actions.setLatest({ label: 'check:a', receipt: RECEIPT, key: KEY });
    store.actions.setLatest({ label: 'check:b', receipt: other, key: KEY });
    // One statement per receipt, and a build's one query for every latest receipt: the same answers.
    const checks = {
      'one statement': store.lifecycle.receiptChainBroken.bind(store.lifecycle),
      latestChains: store.lifecycle.latestChains(),
    };
    for (const [name, check] of Object.entries(checks)) {
      const broken = (receiptId: string, run: string, attempt: unknown, key = KEY) =>
        check(receiptId, { run, attempt, key });
      assert.equal(broken(RECEIPT, 'run-1', 'att-1'), undefined, name);
      assert.equal(broken(other, 'run-2', 'att-2'), undefined, name);
      assert.match(broken(RECEIPT, 'run-9', 'att-1') ?? '', /run run-9 is not in the store/, name);
      assert.match(broken(RECEIPT, 'run-2', 'att-2') ?? '', /run run-2 recorded another result/, name);
      assert.match(
        broken(RECEIPT, 'run-1', 'att-1', `sha256:${'d'.repeat(64)}`) ?? '',
        /recorded another result/,
        name,
      );
      // An attempt of another run (one recording another receipt, or the same one), one that does not exist, or not an id at all.
      assert.match(broken(RECEIPT, 'run-1', 'att-2') ?? '', /attempt att-2 of run run-1 did not record it/, name);
      assert.match(broken(RECEIPT, 'run-1', 'att-3') ?? '', /attempt att-3 of run run-1 did not record it/, name);
      assert.match(broken(RECEIPT, 'run-1', 'att-9') ?? '', /did not record it/, name);
      assert.match(broken(RECEIPT, 'run-1', undefined) ?? '', /did not record it/, name);
      assert.match(broken(RECEIPT, 'run-1', 7) ?? '', /did not record it/, name);
    }
    // The query answers an intact chain by itself: read before the rows went, it still knows them.
    const read = store.lifecycle.latestChains();
    store.db.exec("DELETE FROM attempts WHERE run = 'run-1'; DELETE FROM runs WHERE id = 'run-1'");
    assert.equal(read(RECEIPT, { run: 'run-1', attempt: 'att-1', key: KEY }), undefined);
    assert.match(
      store.lifecycle.latestChains()(RECEIPT, { run: 'run-1', attempt: 'att-1', key: KEY }) ?? '',
      /not in the store/,
    );
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an imported run and its attempt are recorded done, as a run that started and ended at the import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-chain-'));
  const store = new Store(join(dir, 'store'), { now: () => 1_700_000_000_000_000_000n });
  try {
    const from = { host: 'remote http://cache', reason: 'remote hit, signed by k' };
    const receipt = { key: KEY, label: 'check:a', kind: 'check', outcome: 'FAIL', reason: 'exit 1' };
    assert.ok(store.lifecycle.importRun(RECEIPT, { ...receipt, run: 'run-1', attempt: 'att-1' }, from));
    const t = '1700000000000000000';
    assert.deepEqual(
      { ...store.lifecycle.getRun('run-1') },
      {
        id: 'run-1',
        job: KEY,
        queue: null,
        label: 'check:a',
        kind: 'check',
        key: KEY,
        state: 'done',
        outcome: 'FAIL',
        reason: 'exit 1',
        receipt: RECEIPT,
        created_ns: t,
        ended_ns: t,
        root: null,
      },
    );
    assert.deepEqual(
      store.lifecycle.attemptsOf('run-1').map((a) => ({ ...a })),
      [
        {
          id: 'att-1',
          run: 'run-1',
          state: 'done',
          host: 'remote http://cache',
          pid: process.pid,
          pid_start: 'imported',
          heartbeat_ns: t,
          started_ns: t,
          ended_ns: t,
          outcome: 'FAIL',
          reason: 'remote hit, signed by k',
          cancel_requested: 0,
          child_pgid: null,
        },
      ],
    );
    // The same import again is the same result; another result under the run id is refused.
    assert.equal(store.lifecycle.importRun(RECEIPT, { ...receipt, run: 'run-1', attempt: 'att-1' }, from), true);
    assert.equal(
      store.lifecycle.importRun(`sha256:${'c'.repeat(64)}`, { ...receipt, run: 'run-1', attempt: 'att-9' }, from),
      false,
    );
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
