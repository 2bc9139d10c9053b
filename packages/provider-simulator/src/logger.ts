/** JSON lines on stdout, in the same shape as the services' logs, so `npm start` prints them alike. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const LEVELS = { debug: 20, info: 30, warn: 40, error: 50, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const threshold = LEVELS[level];
  const emit =
    (name: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
      if (LEVELS[name] < threshold) return;
      const line = {
        level: LEVELS[name],
        time: new Date().toISOString(),
        service: 'provider-simulator',
        msg,
        ...fields,
      };
      write(`${JSON.stringify(line)}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLogger: Logger = createLogger('silent');
