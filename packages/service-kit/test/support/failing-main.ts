// A process run through `runMain` whose code fails in the way named by its argument, after start.
import { runMain } from '../../src/service-runtime';

const failure = process.argv[2];
const stopHangs = process.argv[3] === 'stop-hangs';

runMain('failing-main', async () => {
  // Keeps the process alive, as a listening server would.
  const alive = setInterval(() => undefined, 1_000);
  setTimeout(() => {
    if (failure === 'rejection') void Promise.reject(new Error('nobody awaited this'));
    if (failure === 'exception') throw new Error('thrown from a timer');
  }, 50);
  return {
    async stop() {
      if (stopHangs) return new Promise<void>(() => undefined);
      clearInterval(alive);
      process.stdout.write('stopped gracefully\n');
    },
  };
});
