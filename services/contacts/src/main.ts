// Tracing must patch http, express, amqplib and mongoose before anything loads them.
import { startTelemetry } from '@switchboard/service-kit/telemetry';
startTelemetry('contacts');

import { runMain } from '@switchboard/service-kit';
import { loadContactsConfig } from './config';
import { startService } from './start-service';

runMain('contacts', () => startService(loadContactsConfig()));
