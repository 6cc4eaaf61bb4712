/**
 * The resident build process's wire format: frames of one type byte, a 4-byte big-endian length and
 * the payload. Requests and answers are JSON; output frames carry raw bytes, so a check's output
 * reaches the client unchanged.
 */
export const FRAME = {
  /** client -> server: a command line to run (`Request`). */
  request: 0x52, // R
  /** client -> server: the user interrupted (`{signal}`). */
  interrupt: 0x41, // A
  /** client -> server: are you there? answered by `exit` with the server's status. */
  ping: 0x50, // P
  /** client -> server: stop after answering. */
  stop: 0x53, // S
  /** server -> client: bytes for stdout / stderr. */
  stdout: 0x4f, // O
  stderr: 0x45, // E
  /** server -> client: the command's exit code (`{code}`), or a ping's answer. */
  exit: 0x58, // X
  /** server -> client: not served here (`{reason}`); the client runs the command itself. */
  refuse: 0x4e, // N
} as const;

export const PROTOCOL = 1;

export interface Request {
  protocol: number;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Whether the client's stdout is a terminal (colors), and its width. */
  tty: boolean;
  columns?: number;
  /** The client's node and vkit: the server serves only its own twin. */
  node: string;
  execPath: string;
  pkg: string;
}

export function frame(type: number, payload: Buffer | string | object): Buffer {
  const body = Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const head = Buffer.allocUnsafe(5);
  head[0] = type;
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Collects stream chunks into whole frames; `push` returns the frames completed so far. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): Array<{ type: number; body: Buffer }> {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Array<{ type: number; body: Buffer }> = [];
    while (this.buf.length >= 5) {
      const len = this.buf.readUInt32BE(1);
      if (this.buf.length < 5 + len) break;
      out.push({ type: this.buf[0]!, body: this.buf.subarray(5, 5 + len) });
      this.buf = this.buf.subarray(5 + len);
    }
    return out;
  }
}

/**
 * A served command's output on its way to the client: the chunks written in one turn of the event
 * loop travel as one frame (a no-op build at 1,000 actions writes 1,000 lines, and a frame and a
 * socket write each cost more than the line). Order is kept: a switch between stdout and stderr
 * sends what came before first. `flush` before the exit frame.
 */
export class OutputFrames {
  private type = -1;
  private parts: Buffer[] = [];
  private size = 0;
  private scheduled = false;

  constructor(private readonly socket: { destroyed: boolean; write(b: Buffer): unknown }) {}

  write(type: number, bytes: Buffer): void {
    if (type !== this.type) this.flush();
    this.type = type;
    this.parts.push(bytes);
    this.size += bytes.length;
    if (this.size >= OUTPUT_FRAME_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  flush(): void {
    if (this.parts.length === 0) return;
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    if (!this.socket.destroyed) this.socket.write(frame(this.type, body));
  }
}

/** Output is sent at least this often by size, however busy the turn. */
const OUTPUT_FRAME_BYTES = 64 * 1024;
