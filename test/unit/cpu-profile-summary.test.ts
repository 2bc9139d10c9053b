import path from 'node:path';
import { moduleOf, summarize } from '../../scripts/cpu-profile-summary';

const ROOT = path.join(__dirname, '..', '..');
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

describe('CPU profile summary', () => {
  test('when a frame is named by its script, then its module is the package, our service or Node', () => {
    expect(moduleOf(`file://${ROOT}/node_modules/mongodb/lib/cmap/connection.js`)).toBe('mongodb');
    expect(moduleOf(`file://${ROOT}/node_modules/@opentelemetry/api/build/index.js`)).toBe(
      '@opentelemetry/api',
    );
    expect(moduleOf(`file://${ROOT}/services/messaging/dist/main.js`)).toBe('services/messaging');
    expect(moduleOf('node:internal/stream_base_commons')).toBe('node:internal');
    expect(moduleOf('')).toBe('(native/V8)');
  });

  test('when native work sits under a library frame, then it is charged to that library as the asker, and idle is left out', () => {
    const driver = `file://${ROOT}/node_modules/mongodb/lib/cmap/connection.js`;
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
        { id: 2, callFrame: frame('writeCommand', driver), children: [3] },
        {
          id: 3,
          callFrame: frame('writeGeneric', 'node:internal/stream_base_commons'),
          children: [4],
        },
        { id: 4, callFrame: frame('writeBuffer', '') },
        { id: 5, callFrame: frame('(idle)', '') },
      ],
      // Each sample's time is the next delta (µs): 4 → 3 ms, 2 → 1 ms, idle → 5 ms.
      samples: [4, 2, 5, 4],
      timeDeltas: [0, 3000, 1000, 5000],
    };
    const { total, byModule, byCaller } = summarize(profile);
    expect(total).toBe(4);
    expect(Object.fromEntries(byModule)).toEqual({ '(native/V8)': 3, mongodb: 1 });
    expect(Object.fromEntries(byCaller)).toEqual({ mongodb: 4 });
  });
});
