/** Machine formats for a gate: SARIF 2.1.0 (code-scanning tools) and JUnit XML (CI test views). Pure. */
import type { Gate } from './evaluate.js';

export function toSarif(gate: Gate, version: string): object {
  const level = (s: string) => (s === 'PASS' ? 'none' : s === 'FAIL' ? 'error' : 'warning');
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'vkit', version, informationUri: 'https://github.com/vkit', rules: gate.items.map((i) => ({ id: i.id, shortDescription: { text: i.id } })) } },
        invocations: [{ executionSuccessful: true, properties: { gate: gate.status, reason: gate.reason } }],
        results: gate.items.map((i) => ({
          ruleId: i.id,
          level: level(i.status),
          kind: i.status === 'PASS' ? 'pass' : i.status === 'FAIL' ? 'fail' : 'open',
          message: { text: `${i.status}: ${i.reason}` },
          properties: { required: i.required, status: i.status, run: i.run },
        })),
      },
    ],
  };
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function toJunit(gate: Gate): string {
  const failures = gate.items.filter((i) => i.status === 'FAIL').length;
  const open = gate.items.filter((i) => i.status !== 'PASS' && i.status !== 'FAIL').length;
  const cases = gate.items.map((i) => {
    const head = `  <testcase classname="vkit.gate" name="${xml(i.id)}">`;
    if (i.status === 'PASS') return `${head}</testcase>`;
    if (i.status === 'FAIL') return `${head}<failure message="${xml(i.reason)}"/></testcase>`;
    // Missing, stale and blocked evidence is an error, not a skip: a skip reads as harmless.
    return `${head}<error type="${i.status}" message="${xml(i.reason)}"/></testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="vkit gate: ${gate.status}" tests="${gate.items.length}" failures="${failures}" errors="${open}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}
