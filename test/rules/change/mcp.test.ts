/**
 * MCP `change_certify` through a real SDK client and `vkit mcp`: the same report as the CLI, the
 * target only the host's (`VKIT_CHANGE_TARGET`, a full commit id); without it, or with a ref, refused.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connect } from '../../_support/mcp-client.js';
import { type TempRepo, tempRepo } from '../../_support/repo.js';
import { CATALOGUE } from './catalogue.js';
import { z3Skip } from './z3.js';

const DIR = 'verification/change-claims';
const c = CATALOGUE.max_u8!;

function scenario(): { repo: TempRepo; request: Record<string, unknown>; target: string } {
  const text = `${JSON.stringify(c.basis)}\n`;
  const digest = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  const registry = {
    schema: 'vkit.accepted-claim-bases/1',
    bases: [{ digest, file: 'max.delegation-basis.v1.json', function: 'max_u8::max_u8', since: 'initial' }],
  };
  const repo = tempRepo({
    [`${DIR}/max.delegation-basis.v1.json`]: text,
    [`${DIR}/accepted-claim-bases.v1.json`]: JSON.stringify(registry),
  });
  const target = repo.commitAll('target');
  repo.write('src.rs', 'fn max_u8() {}\n');
  const candidate = repo.commitAll('candidate');
  const request = {
    schema: 'vkit.change-request/1',
    candidate,
    basis: digest,
    claim: c.claim,
    delegation: { witness: c.witness },
  };
  return { repo, request, target };
}

describe('MCP change_certify', z3Skip(), () => {
  const s = scenario();
  const saved = process.env.VKIT_CHANGE_TARGET;
  after(() => {
    if (saved === undefined) delete process.env.VKIT_CHANGE_TARGET;
    else process.env.VKIT_CHANGE_TARGET = saved;
    s.repo.cleanup();
  });

  test('with the host target: the report, logic holding and the code step BLOCKED (acceptance unknown)', async () => {
    process.env.VKIT_CHANGE_TARGET = s.target;
    const mcp = await connect(s.repo);
    try {
      const { isError, json } = await mcp.call('change_certify', { request: s.request });
      assert.equal(isError, false, JSON.stringify(json));
      assert.equal(json.schema, 'vkit.change-certification/1');
      assert.equal(json.acceptance, 'unknown');
      assert.equal(json.target, s.target);
      const status = Object.fromEntries(json.obligations.map((o: { id: string; status: string }) => [o.id, o.status]));
      assert.equal(status['logic.entailed'], 'holds');
      assert.equal(status['witness.claim_forbids'], 'holds');
      assert.equal(status['code.claim_satisfied'], 'unknown');
      const refuted = await mcp.call('change_certify', { request: JSON.stringify({ ...s.request, claim: c.weakens }) });
      assert.equal(refuted.json.acceptance, 'refuted');
      assert.ok(refuted.json.obligations.find((o: { id: string }) => o.id === 'logic.strengthens').counterexample);
    } finally {
      await mcp.close();
    }
  });

  test('without a host target, or with a ref the agent could move, the tool refuses', async () => {
    for (const target of [undefined, 'HEAD']) {
      if (target === undefined) delete process.env.VKIT_CHANGE_TARGET;
      else process.env.VKIT_CHANGE_TARGET = target;
      const mcp = await connect(s.repo);
      try {
        const { isError, json } = await mcp.call('change_certify', { request: s.request });
        assert.equal(isError, true);
        assert.match(JSON.stringify(json), /VKIT_CHANGE_TARGET/);
      } finally {
        await mcp.close();
      }
    }
  });
});
