import mongoose, { type Connection } from 'mongoose';
import type { Logger } from './logger';

// Operators smuggled into filter values (`{"$gt": ""}`) become literals, everywhere.
mongoose.set('sanitizeFilter', true);
mongoose.set('strictQuery', true);

export interface MongoOptions {
  url: string;
  dbName: string;
  logger: Logger;
}

/** Connects to the service's own database; no service ever opens another's. */
export async function connectMongo({ url, dbName, logger }: MongoOptions): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    connectTimeoutMS: 10_000,
    maxPoolSize: 20,
  });
  connection.on('disconnected', () => logger.warn({ dbName }, 'database disconnected'));
  connection.on('reconnected', () => logger.info({ dbName }, 'database reconnected'));
  await connection.asPromise();
  logger.info({ dbName }, 'database connected');
  return connection;
}

export function isMongoReady(connection: Connection): boolean {
  return connection.readyState === mongoose.ConnectionStates.connected;
}
