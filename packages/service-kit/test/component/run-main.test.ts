import { spawn } from 'node:child_process';
import path from 'node:path';
import { FATAL_STOP_TIMEOUT_MS } from '../../src';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const REGISTER = path.join(ROOT, 'test', 'support', 'register-typescript.js');
const MAIN = path.join(__dirname, '..', 'support', 'failing-main.ts');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
  tookMs: number;
}

/** Runs the failing main as its own process; settles when it exits, or after 20 s. */
function run(...args: string[]): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, ['-r', REGISTER, MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    const still = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code, signal) => {
      clearTimeout(still);
      resolve({ code, signal, lines: output.split('\n'), tookMs: Date.now() - started });
    });
  });
}

function fatalLine(lines: string[]): { msg: string; err?: { message: string } } | undefined {
  return lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } })
    .find((line) => line.level === 60);
}

jest.setTimeout(60_000);

describe('runMain', () => {
  test('when a promise rejection goes unhandled, then the process logs it as fatal, stops gracefully and exits 1', async () => {
    const result = await run('rejection');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(fatalLine(result.lines)).toMatchObject({
      msg: 'unhandled promise rejection: stopping the process',
      err: { message: 'nobody awaited this' },
    });
    expect(result.lines).toContain('stopped gracefully');
  });

  test('when an exception goes uncaught, then the process logs it as fatal, stops gracefully and exits 1', async () => {
    const result = await run('exception');
    expect(result.code).toBe(1);
    expect(fatalLine(result.lines)).toMatchObject({
      msg: 'uncaught exception: stopping the process',
      err: { message: 'thrown from a timer' },
    });
    expect(result.lines).toContain('stopped gracefully');
  });

  test('when the graceful stop after an unhandled rejection hangs, then the process still exits 1 once the bound has passed', async () => {
    const result = await run('rejection', 'stop-hangs');
    expect(result.code).toBe(1);
    expect(result.tookMs).toBeGreaterThanOrEqual(FATAL_STOP_TIMEOUT_MS);
    expect(result.lines.some((line) => line.includes('graceful stop took too long'))).toBe(true);
  });
});
