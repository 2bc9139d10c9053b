// Tracing must patch http, express, amqplib and mongoose before anything loads them.
import { startTelemetry } from '@switchboard/service-kit/telemetry';
startTelemetry('campaigns');

import { runMain } from '@switchboard/service-kit';
import { loadCampaignsConfig } from './config';
import { startService } from './start-service';

runMain('campaigns', () => startService(loadCampaignsConfig()));
