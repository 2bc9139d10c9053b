/**
 * The shard keys of the large collections, for a production MongoDB that outgrows one replica
 * set. Each is led by the organization, so that every tenant-scoped query (they all carry
 * `company_id`) goes to one shard, and followed by a field that splits a large organization
 * into many chunks. docs/architecture.md quotes this table; a test checks the indexes each
 * service creates against it.
 */
export interface ShardKeyEntry {
  service: 'messaging' | 'contacts' | 'webhooks' | 'inbound';
  collection: string;
  key: Record<string, 1>;
}

export const SHARD_KEYS: readonly ShardKeyEntry[] = [
  { service: 'messaging', collection: 'messages', key: { company_id: 1, _id: 1 } },
  // One per sent or received message: the wamid's owner, and what keeps a wamid stored once.
  { service: 'messaging', collection: 'wamid_keys', key: { _id: 1 } },
  { service: 'contacts', collection: 'contacts', key: { company_id: 1, phone: 1 } },
  { service: 'webhooks', collection: 'deliveries', key: { company_id: 1, _id: 1 } },
  { service: 'webhooks', collection: 'event_payloads', key: { company_id: 1, _id: 1 } },
  { service: 'webhooks', collection: 'delivery_logs', key: { company_id: 1, _id: 1 } },
  { service: 'inbound', collection: 'inbound_events', key: { company_id: 1, body_sha256: 1 } },
];

export interface IndexDefinition {
  name: string;
  key: Record<string, unknown>;
  unique?: boolean;
}

/**
 * What MongoDB would refuse about these indexes once the collection is sharded on `shardKey`:
 * a unique index (other than `_id`'s, unique per shard only) must start with every field of the
 * shard key, in order.
 */
export function shardKeyViolations(
  shardKey: Record<string, unknown>,
  indexes: readonly IndexDefinition[],
): string[] {
  const keyFields = Object.keys(shardKey);
  return indexes
    .filter((index) => index.unique && index.name !== '_id_')
    .filter((index) => {
      const fields = Object.keys(index.key);
      return keyFields.some((field, position) => fields[position] !== field);
    })
    .map(
      (index) =>
        `unique index ${index.name} ${JSON.stringify(index.key)} does not start with the shard key ${JSON.stringify(shardKey)}`,
    );
}

/**
 * Drops the index `name` if it exists as a unique index: an index made non-unique for the shard
 * key keeps its name, and creating it again over the unique one would fail at startup.
 */
export async function dropIfUnique(
  collection: {
    listIndexes(): { toArray(): Promise<IndexDefinition[]> };
    dropIndex(name: string): Promise<unknown>;
  },
  name: string,
): Promise<void> {
  let indexes: IndexDefinition[];
  try {
    indexes = await collection.listIndexes().toArray();
  } catch {
    return; // no collection yet: nothing to drop
  }
  if (indexes.some((index) => index.name === name && index.unique)) {
    await collection.dropIndex(name);
  }
}
