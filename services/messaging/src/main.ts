// Tracing must patch http, express, amqplib and mongoose before anything loads them.
import { startTelemetry } from '@switchboard/service-kit/telemetry';
startTelemetry('messaging');

import { runMain } from '@switchboard/service-kit';
import { loadMessagingConfig } from './config';
import { startService } from './start-service';

runMain('messaging', () => startService(loadMessagingConfig()));
