/**
 * `vkit report --out DIR` opened in a real headless Chromium, offline: the page loads without a
 * console error or exception (under its own Content-Security-Policy, which forbids every script and
 * external load), shows the gate `vkit gate` gives (REJECTED: a check fails) and the failing check's
 * log tail with its terminal escapes stripped; a `<script>` the check printed is shown as text and
 * never becomes an element; the screenshot has the viewport's size and is not blank (the gate's red
 * banner is in it). One build, one report, one browser.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromiumSkip, openPage } from '../_support/chromium.js';
import { cli } from '../_support/evidence.js';
import { countColour, distinctColours, readPng } from '../_support/png.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const PLANTED = '<script>document.title="pwned"</script>';

test(
  'the report page loads clean in headless Chromium and shows the gate, the failing check and its tail',
  chromiumSkip(),
  async () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    repo.age('a.txt');
    repo.age('b.txt');
    repo.manifest({
      checks: [
        { id: 'fine', run: nodeCheck('0'), inputs: ['a.txt'] },
        {
          id: 'broken',
          run: nodeCheck(
            `console.log('\\u001b[31mAssertionError: expected 1 to equal 2\\u001b[39m');console.log(${JSON.stringify(PLANTED)});process.exit(1)`,
          ),
          inputs: ['b.txt'],
          after: ['fine'],
        },
      ],
    });
    const out = join(repo.dir, 'vkit-report');
    try {
      assert.equal(cli(repo, ['build']).code, 1);
      const gate = cli(repo, ['gate', '--json']);
      assert.equal(gate.json().status, 'REJECTED');
      const report = cli(repo, ['report', '--out', out, '--json']);
      assert.equal(report.code, gate.code, `report exits with the gate's code: ${report.stderr}`);
      assert.equal(report.json().gate, 'REJECTED');
      const html = readFileSync(join(out, 'index.html'), 'utf8');
      assert.ok(!html.includes('\u001b'), 'no terminal escape in the page');

      const t0 = performance.now();
      const page = await openPage(join(out, 'index.html'));
      try {
        const text = (await page.evaluate('document.body.innerText')) as string;
        assert.match(text, /Gate: REJECTED/);
        assert.match(text, /check:broken/);
        assert.match(text, /^AssertionError: expected 1 to equal 2$/m, "the failing check's tail, escapes stripped");
        assert.ok(text.includes(PLANTED), 'the planted script is shown as text');
        assert.equal(await page.evaluate('document.scripts.length'), 0, 'no script element in the page');
        assert.equal(await page.evaluate('document.title'), `vkit gate REJECTED: ${repo.dir}`);
        assert.equal(await page.evaluate('document.querySelectorAll("svg.graph rect").length'), 2, 'one box per check');
        const png = readPng(await page.screenshot());
        assert.deepEqual([png.width, png.height], [1280, 900]);
        assert.ok(
          distinctColours(png) > 20,
          `a screenshot of text and colours, not a blank page (${distinctColours(png)} colours)`,
        );
        // The REJECTED banner (#cf222e) spans the page's width: thousands of its pixels.
        assert.ok(countColour(png, [0xcf, 0x22, 0x2e]) > 20_000, "the gate's red banner is in the screenshot");
        assert.deepEqual(page.errors, [], 'no console error, exception or error log entry');
      } finally {
        await page.close();
      }
      process.stderr.write(`report-chromium: browser session ${Math.round(performance.now() - t0)} ms\n`);
    } finally {
      repo.cleanup();
    }
  },
);
