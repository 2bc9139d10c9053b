// Tracing must patch http, express and mongoose before anything loads them, so it starts first.
import { startTelemetry } from '@switchboard/service-kit/telemetry';
startTelemetry('gateway');

import { runMain } from '@switchboard/service-kit';
import { loadGatewayConfig } from './config';
import { startService } from './start-service';

runMain('gateway', () => startService(loadGatewayConfig()));
