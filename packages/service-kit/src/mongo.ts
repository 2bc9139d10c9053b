import mongoose, { type Connection, type Model, type QueryFilter } from 'mongoose';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from './logger';

// Operators smuggled into filter values (`{"$gt": ""}`) become literals, everywhere.
mongoose.set('sanitizeFilter', true);
mongoose.set('strictQuery', true);

export interface MongoOptions {
  url: string;
  dbName: string;
  logger: Logger;
  /**
   * When given, every command the driver sends is counted by name and collection on this
   * registry (`switchboard_db_commands_total{command,collection}`), for the benchmark's commands
   * per send, and the documents each write command names
   * (`switchboard_db_rows_written_total{command,collection}`). Off by default: command
   * monitoring makes the driver build an event per command.
   */
  commandStats?: Registry;
}

/** Connects to the service's own database; no service ever opens another's. */
export async function connectMongo({
  url,
  dbName,
  logger,
  commandStats,
}: MongoOptions): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    connectTimeoutMS: 10_000,
    maxPoolSize: 20,
    monitorCommands: commandStats !== undefined,
  });
  if (commandStats) countCommands(connection, commandStats);
  connection.on('disconnected', () => logger.warn({ dbName }, 'database disconnected'));
  connection.on('reconnected', () => logger.info({ dbName }, 'database reconnected'));
  await connection.asPromise();
  logger.info({ dbName }, 'database connected');
  return connection;
}

export function isMongoReady(connection: Connection): boolean {
  return connection.readyState === mongoose.ConnectionStates.connected;
}

/** Drops the index `name` where it exists: an index a newer schema no longer declares. */
export async function dropIndexIfPresent(
  collection: {
    indexExists(name: string): Promise<boolean>;
    dropIndex(name: string): Promise<unknown>;
  },
  name: string,
): Promise<void> {
  // The collection may not exist yet, and another replica may drop the index first.
  const present = await collection.indexExists(name).catch(() => false);
  if (present) await collection.dropIndex(name).catch(() => undefined);
}

function countCommands(connection: Connection, registry: Registry): void {
  const commands = new Counter({
    name: 'switchboard_db_commands_total',
    help: 'Database commands sent by the driver, by command name (only with DB_COMMAND_STATS)',
    labelNames: ['command', 'collection'] as const,
    registers: [registry],
  });
  const rows = new Counter({
    name: 'switchboard_db_rows_written_total',
    help: 'Documents named by write commands (update and delete statements, inserted documents), by command and collection (only with DB_COMMAND_STATS)',
    labelNames: ['command', 'collection'] as const,
    registers: [registry],
  });
  connection.getClient().on('commandStarted', (event) => {
    // The collection is the command's own value (`{find: "messages"}`), or `collection` for a
    // getMore; commands on no collection (hello, ping) have none.
    const named: unknown = event.command[event.commandName];
    const other: unknown = event.command.collection;
    const collection = typeof named === 'string' ? named : typeof other === 'string' ? other : '';
    commands.inc({ command: event.commandName, collection });
    const written = rowsOf(event.commandName, event.command);
    if (written > 0) rows.inc({ command: event.commandName, collection }, written);
  });
}

/**
 * The documents a write command names: its statements (an update or delete may change several,
 * but ours name one by `_id`), its documents for an insert. Command monitoring sees one command
 * where a bulk write changes hundreds of rows: the database's cost follows the rows.
 */
function rowsOf(name: string, command: Record<string, unknown>): number {
  const list = (key: string) => (Array.isArray(command[key]) ? command[key].length : 0);
  if (name === 'insert') return list('documents');
  if (name === 'update') return list('updates');
  if (name === 'delete') return list('deletes');
  return name === 'findAndModify' ? 1 : 0;
}

/**
 * The organization's record with this id (stored with the id as its `_id`), or null: another
 * organization's record is never found, exactly like one that does not exist. Read by `_id`
 * alone, the local database's fast path, and the organization checked here.
 */
export async function findOwn<T extends { company_id: number }>(
  model: Model<T>,
  company_id: number,
  id: number,
): Promise<T | null> {
  const record = await model.findById(String(id)).lean<T>().exec();
  return record && record.company_id === company_id ? record : null;
}

/** One page of the records matching `filter`, in id order, and how many match in all. */
export async function findPage<T>(
  model: Model<T>,
  filter: QueryFilter<T>,
  skip: number,
  limit: number,
): Promise<{ records: T[]; total: number }> {
  const [records, total] = await Promise.all([
    model.find(filter).sort({ id: 1 }).skip(skip).limit(limit).lean<T[]>().exec(),
    model.countDocuments(filter).exec(),
  ]);
  return { records, total };
}
