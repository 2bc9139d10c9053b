// docdb must keep answering whatever cursors its clients leave open. On PostgreSQL, FerretDB
// holds one of its 50 pooled connections per open cursor and waits for a free one without a time
// limit, so cursors left open (a find larger than its first batch, never exhausted) once stopped
// the whole server, ping included, for good: the clients that held them were themselves waiting
// for the pool, so even their death freed nothing. A docdb of its own (own port and PostgreSQL
// database, started through infra.sh) is driven into that corner here; the shared one is untouched.
import { spawn } from 'node:child_process';
import path from 'node:path';
import mongoose from 'mongoose';
import { startOwnDocdb, type OwnDocdb } from '../support/own-docdb';

const ROOT = path.resolve(__dirname, '../..');
const { MongoClient } = mongoose.mongo;

// More than FerretDB's PostgreSQL pool holds.
const CURSORS = 60;
const DOCS = 150; // more than a first batch (101)

/** The promise's value, or a clear failure once `ms` passed without an answer. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`docdb did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('docdb with more open cursors than PostgreSQL connections', () => {
  let docdb: OwnDocdb | undefined;
  let url: string;
  const dbName = 'cursors_test';

  beforeAll(async () => {
    docdb = await startOwnDocdb(27_800);
    url = docdb.url;
    const setup = await MongoClient.connect(url);
    try {
      await setup.db(dbName).dropDatabase();
      await setup
        .db(dbName)
        .collection('items')
        .insertMany(Array.from({ length: DOCS }, (_, i) => ({ i })));
    } finally {
      await setup.close();
    }
  }, 180_000);

  afterAll(async () => {
    await docdb?.down().catch(() => {});
  }, 60_000);

  test('when a client leaves them open, then ping and create still answer, and the least recently used cursor is reported expired', async () => {
    const client = await MongoClient.connect(url);
    try {
      const items = client.db(dbName).collection('items');
      const cursors = [];
      for (let k = 0; k < CURSORS; k++) {
        // No sort: FerretDB sorts in memory what it cannot sort in SQL, and keeps no rows open.
        const cursor = items.find({});
        await within(10_000, `find number ${k + 1}`, cursor.next());
        cursors.push(cursor);
      }

      await within(10_000, 'ping', client.db('admin').command({ ping: 1 }));
      await within(10_000, 'create', client.db(`${dbName}_new`).createCollection('fresh'));

      // The newest cursor is whole; the oldest was killed to make room, as an expired one.
      const rest = await within(10_000, 'getMore', cursors.at(-1)!.toArray());
      expect(rest).toHaveLength(DOCS - 1);
      await expect(within(10_000, 'getMore', cursors[0]!.toArray())).rejects.toMatchObject({
        code: 43, // CursorNotFound
      });
      await client.db(`${dbName}_new`).dropDatabase();
    } finally {
      await client.close(true);
    }
  }, 90_000);

  test('when a client process dies holding them while its connections wait, then docdb answers again', async () => {
    // Ten connections that each keep opening cursors without exhausting any: once the pool is
    // gone, each connection waits for it while its own cursors hold it.
    const script = `
      const { MongoClient } = require('mongoose').mongo;
      let opened = 0;
      (async () => {
        for (let k = 0; k < 10; k++) {
          const client = await MongoClient.connect(${JSON.stringify(url)}, { maxPoolSize: 1 });
          const items = client.db(${JSON.stringify(dbName)}).collection('items');
          (async () => {
            for (;;) {
              await items.find({}).next();
              console.log('opened', ++opened);
            }
          })().catch(() => {});
        }
      })();
    `;
    const child = spawn(process.execPath, ['-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await within(
        30_000,
        'the dying client',
        new Promise<void>((resolve) => {
          child.stdout.on('data', (chunk: Buffer) => {
            const counts = [...chunk.toString().matchAll(/opened (\d+)/g)].map((m) => Number(m[1]));
            if (Math.max(0, ...counts) >= 50) resolve();
          });
        }),
      );
      // Long enough for every connection to be waiting with its cursors (the stuck state).
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    const client = await MongoClient.connect(url);
    try {
      await within(10_000, 'ping', client.db('admin').command({ ping: 1 }));
      const all = await within(
        10_000,
        'find',
        client.db(dbName).collection('items').find({}).toArray(),
      );
      expect(all).toHaveLength(DOCS);
    } finally {
      await client.close(true);
    }
  }, 90_000);
});
