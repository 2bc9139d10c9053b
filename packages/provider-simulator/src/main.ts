import { loadConfig } from './config';
import { createSimulator } from './create-simulator';
import { createLogger } from './logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const simulator = createSimulator({ ...config.simulator, logger: log });
  const { url } = await simulator.start(config.port, config.host);
  log.info('provider simulator listening', {
    url,
    channels: simulator.state.channels.size,
    global_tokens: config.simulator.accessTokens?.length ?? 0,
  });
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info('provider simulator stopping', { signal });
    void simulator.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `provider simulator failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
