export interface RabbitAdmin {
  addVhost(vhost: string): Promise<void>;
  deleteVhost(vhost: string): Promise<void>;
  queues(vhost: string): Promise<Array<{ name: string; type: string }>>;
  closeConnections(
    matches: (connection: { vhost: string; connectionName: string | undefined }) => boolean,
    options?: { timeoutMs?: number; reason?: string },
  ): Promise<number>;
}

export function createRabbitAdmin(baseUrl: string): RabbitAdmin;

export function managementUrlOf(amqpUrl: string, env?: Record<string, string | undefined>): string;
