/**
 * A served command's output travels in one frame per turn of the event loop (`OutputFrames`), in
 * the order it was written, stdout and stderr interleaved as the command wrote them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRAME, FrameReader, OutputFrames } from '../../src/daemon/frames.js';

/** A socket's write side as OutputFrames uses it, decoding what it is sent. */
function receiver() {
  const reader = new FrameReader();
  const frames: Array<{ type: number; text: string }> = [];
  return {
    frames,
    destroyed: false,
    write(b: Buffer) {
      for (const f of reader.push(b)) frames.push({ type: f.type, text: f.body.toString() });
    },
  };
}
const turn = () => new Promise((done) => setImmediate(done));

test('the lines of one turn go as one frame; a switch of stream sends what came before first', async () => {
  const socket = receiver();
  const out = new OutputFrames(socket);
  for (let i = 0; i < 1000; i++) out.write(FRAME.stdout, Buffer.from(`cached  check:p${i}\n`));
  out.write(FRAME.stderr, Buffer.from('warning\n'));
  out.write(FRAME.stdout, Buffer.from('gate READY\n'));
  assert.equal(socket.frames.length, 2, 'the stdout lines and the warning were sent at the switches');
  await turn();
  assert.deepEqual(
    socket.frames.map((f) => f.type),
    [FRAME.stdout, FRAME.stderr, FRAME.stdout],
  );
  assert.equal(socket.frames[0]!.text.split('\n').length, 1001);
  assert.equal(socket.frames[0]!.text.slice(0, 18), 'cached  check:p0\nc');
  assert.equal(socket.frames[1]!.text, 'warning\n');
  assert.equal(socket.frames[2]!.text, 'gate READY\n');
});

test('flush sends what is pending at once; a large turn goes in frames of bounded size; a closed socket gets nothing', async () => {
  const socket = receiver();
  const out = new OutputFrames(socket);
  out.write(FRAME.stdout, Buffer.from('last line\n'));
  out.flush();
  assert.deepEqual(socket.frames, [{ type: FRAME.stdout, text: 'last line\n' }]);
  const big = Buffer.alloc(40 * 1024, 'x');
  for (let i = 0; i < 5; i++) out.write(FRAME.stdout, big);
  out.flush();
  const sizes = socket.frames.slice(1).map((f) => f.text.length);
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    5 * big.length,
  );
  assert.ok(sizes.length >= 2 && sizes.every((n) => n <= 2 * big.length), `frames of ${sizes.join(', ')} bytes`);
  socket.destroyed = true;
  out.write(FRAME.stdout, Buffer.from('gone\n'));
  await turn();
  assert.equal(socket.frames.length, 1 + sizes.length);
});
