// Tracing must patch http, express, amqplib and mongoose before anything loads them.
import { startTelemetry } from '@switchboard/service-kit/telemetry';
startTelemetry('webhooks');

import { runMain } from '@switchboard/service-kit';
import { loadWebhooksConfig } from './config';
import { startService } from './start-service';

runMain('webhooks', () => startService(loadWebhooksConfig()));
