// Tracing must patch http, express, amqplib and mongoose before anything loads them.
import { startTelemetry } from '@switchboard/service-kit/telemetry';
startTelemetry('inbound');

import { runMain } from '@switchboard/service-kit';
import { loadInboundConfig } from './config';
import { startService } from './start-service';

runMain('inbound', () => startService(loadInboundConfig()));
